// Runs a program of examples/ the way a user does: a real child process under tsx, in the repository's root.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root: examples import "agentrt" as a user would (tsconfig maps it to src/). */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** What a finished example printed and how it ended. */
export interface ExampleRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A fresh directory for an example's database (and whatever else it writes). */
export function exampleDir(): string {
  return mkdtempSync(join(tmpdir(), "agentrt-example-"));
}

/** The text of a file of the repository. */
export function repoFile(path: string): string {
  return readFileSync(join(ROOT, path), "utf8");
}

/** Spawns `node --import tsx <file> ...args` with `env` over this process's environment (offline: no OpenAI key). */
export function runExample(file: string, args: string[], env: Record<string, string>): Promise<ExampleRun> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete childEnv.OPENAI_API_KEY;
  // vitest's own markers would make agentrt think a TypeScript loader is active for reasons other than tsx.
  delete childEnv.VITEST;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", file, ...args], { cwd: ROOT, env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
