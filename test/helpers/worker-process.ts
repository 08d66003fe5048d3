// `agentrt worker` (or a fixture wrapping it) as a real child process on a PostgreSQL schema, for the multi-process
// fault tests: what it printed, how it exited, and a poll of the database that fails early when the child dies.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** How a worker process ended. */
export interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A worker child process. */
export interface WorkerProcess {
  readonly proc: ChildProcess;
  readonly exit: Promise<WorkerExit>;
  /** What it printed to stderr so far. */
  stderr(): string;
  /** SIGKILLs it and waits until it is gone. */
  kill(): Promise<WorkerExit>;
}

/** Options of {@link startWorker}. */
export interface StartWorkerOptions {
  /** Extra environment (AGENTRT_SIM_LATENCY_MS, AGENTRT_LEASE_MS, a fixture's settings). */
  env?: Record<string, string>;
  /** A script to run instead of `src/cli/bin.ts worker` (it gets the same arguments after `worker`). @default the CLI */
  script?: string;
}

/** `agentrt worker --db url …args` from the checkout's sources, with no real model and no faults unless given. */
export function startWorker(url: string, args: string[], options: StartWorkerOptions = {}): WorkerProcess {
  const argv = options.script === undefined ? ["src/cli/bin.ts", "worker"] : [options.script];
  const proc = spawn(process.execPath, ["--import", "tsx", ...argv, "--db", url, ...args], {
    cwd: ROOT,
    env: {
      ...process.env, OPENAI_API_KEY: "", AGENTRT_DATABASE_URL: "", AGENTRT_SIM_LATENCY_MS: "0", AGENTRT_SIM_FAULTS: "",
      AGENTRT_CONFIG: `${ROOT}langgraph.json`, ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  proc.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  proc.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<WorkerExit>((resolve) => proc.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr })));
  return {
    proc,
    exit,
    stderr: () => stderr,
    kill: async () => {
      proc.kill("SIGKILL");
      return exit;
    },
  };
}

/**
 * Polls (the database, never a fixed sleep alone) until `ready` holds; fails early, with their stderr, when one of
 * `workers` exits first.
 */
export async function until(
  what: string, ready: () => boolean | Promise<boolean>, workers: Array<{ exit: Promise<unknown>; stderr?: () => string }> = [], timeoutMs = 60_000,
): Promise<void> {
  const exited = new Set<(typeof workers)[number]>();
  for (const worker of workers) void worker.exit.then(() => exited.add(worker));
  const end = Date.now() + timeoutMs;
  while (!(await ready())) {
    const gone = workers.find((worker) => exited.has(worker));
    if (gone !== undefined) throw new Error(`worker exited before ${what}: ${JSON.stringify(await gone.exit)}`);
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; workers said: ${workers.map((w) => w.stderr?.() ?? "").join(" | ")}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
