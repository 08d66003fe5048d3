// Runs the real agentrt executable as a child process, as a user's shell does: its exit status also proves the
// command closed what it opened (an open pool or socket would keep the process alive until the timeout kills it).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** What one child `agentrt` printed and how it exited (`code` null when the timeout killed it). */
export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `agentrt …args` from the checkout's sources; killed after `timeoutMs`. */
export function agentrtProcess(args: string[], options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli/bin.ts", ...args], {
      cwd: root,
      env: { ...process.env, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
