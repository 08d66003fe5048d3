// The read commands start without LangGraph, LangChain or the OpenAI client: they only read the database, and
// those packages were most of a command's startup (a loader hook lists what the child process loads).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const HOOK = join(ROOT, "test/helpers/record-imports.mjs");
const HEAVY = /\/node_modules\/(@langchain\/|langsmith\/|openai\/)/;

const dir = mkdtempSync(join(tmpdir(), "agentrt-imports-"));
const db = join(dir, "i.db");

/** Runs `agentrt …args` from the sources (as `npm run agentrt` does) and returns its exit code and the modules it loaded. */
function loadedBy(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; modules: string[] }> {
  const record = join(dir, `${args[0]}-${Math.random().toString(36).slice(2)}.txt`);
  const env: NodeJS.ProcessEnv = { ...process.env, RECORD_IMPORTS_FILE: record };
  delete env.OPENAI_API_KEY;
  delete env.VITEST;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--import", HOOK, "src/cli/bin.ts", ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr, modules: readFileSync(record, "utf8").split("\n").filter((l) => l !== "") }));
  });
}

let runId: string;
beforeAll(async () => {
  // A run to read, made by the CLI as a user makes it; it also shows the hook sees LangGraph when it is loaded.
  const made = await loadedBy(["run", "city_weather", "-m", "Weather for Beijing", "--db", db, "--json"]);
  expect(made.code, made.stderr).toBe(0);
  expect(made.modules.some((m) => m.includes("/node_modules/@langchain/langgraph/"))).toBe(true);
  runId = (JSON.parse(made.stdout) as { run_id: string }).run_id;
}, 240_000);

describe("the read commands' startup", () => {
  it.each([
    ["status", () => ["status", runId, "--db", db]],
    ["runs", () => ["runs", "--db", db]],
    ["trace", () => ["trace", runId, "--db", db]],
  ])("%s loads no LangGraph, LangChain or OpenAI module", async (name, args) => {
    const { code, stderr, modules } = await loadedBy(args());
    expect(code, stderr).toBe(0);
    expect(modules.some((m) => m.endsWith(`/src/cli/commands/${name}.ts`))).toBe(true);
    expect(modules.filter((m) => HEAVY.test(m))).toEqual([]);
  }, 120_000);
});
