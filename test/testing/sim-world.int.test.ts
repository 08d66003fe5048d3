import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, expect, it } from "vitest";
import { closeWorlds, openWorld } from "../../src/testing/sim-open.js";

const child = fileURLToPath(new URL("./fixtures/sim-child.ts", import.meta.url));

interface ChildResult {
  result: number;
  operationId: string;
  replayed: boolean;
  faults: number;
}

function runChild(env: NodeJS.ProcessEnv): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ["--import", "tsx", child], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    proc.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    proc.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    proc.on("error", reject);
    proc.on("close", (code) => {
      if (code === 0) resolve(JSON.parse(out) as ChildResult);
      else reject(new Error(`child exited ${String(code)}: ${err}`));
    });
  });
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agentrt-sim-int-"));
});
afterEach(async () => {
  await closeWorlds();
  rmSync(dir, { recursive: true, force: true });
});

it("processes sharing one file perform a keyed side effect once and share fault counts", async () => {
  const file = join(dir, "shared.db");
  const env = { AGENTRT_DB: file, AGENTRT_SIM_FAULTS: "increment:2" };
  const results = await Promise.all([runChild(env), runChild(env), runChild(env)]);

  expect(new Set(results.map((r) => r.operationId))).toEqual(new Set(["op_counter_1"]));
  expect(results.map((r) => r.result)).toEqual([1, 1, 1]);
  expect(results.filter((r) => !r.replayed)).toHaveLength(1);
  expect(results.reduce((sum, r) => sum + r.faults, 0)).toBe(2);

  expect(await openWorld({ path: file }).snapshot()).toEqual({
    calls: { increment: 1, read: 3 },
    failures: { increment: 2 },
    systems: { counter: { value: 1 } },
  });
});
