// The simulated world under agentrt's own executor and retry policy.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { z } from "zod";
import { openDatabase, type SqliteDatabase } from "../../src/db/index.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { executeTool } from "../../src/tools/execute-tool.js";
import { withRetry } from "../../src/resilience/retry.js";
import { callSim } from "../../src/testing/sim-call.js";
import { openWorld } from "../../src/testing/sim-open.js";

const lamp = { name: "lamp", seed: { on: false } };
const switchOn = defineTool({
  name: "switch_on",
  description: "Switch the lamp on",
  schema: z.object({}),
  risk: "write",
  idempotent: true,
  timeoutMs: 100,
  retry: { attempts: 4, initialDelayMs: 1 },
  execute: (_args, ctx) =>
    callSim(ctx, { system: lamp, tool: "switch_on", sideEffect: true }, ({ state, operationId }) => {
      state.set("on", true);
      return { operationId };
    }),
});

let dir: string;
let db: SqliteDatabase;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agentrt-sim-exec-"));
  db = openDatabase(join(dir, "run.db"));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const scope = (toolCallId: string) => ({ runId: "run_1", threadId: "t", toolCallId, user: "u", db });

it("retries injected faults with the tool's policy and performs the side effect once", async () => {
  const world = openWorld({ db, env: { AGENTRT_SIM_FAULTS: "switch_on:2" } });
  const attempts: number[] = [];
  const outcome = await withRetry(async (attempt) => {
    attempts.push(attempt);
    const result = await executeTool(switchOn, {}, { ...scope("call_a"), attempt });
    if (!result.ok) throw result.error;
    return result;
  }, switchOn.retry);
  expect(attempts).toEqual([1, 2, 3]);
  expect(outcome).toMatchObject({ ok: true, result: { operationId: "op_lamp_1" }, externalOperationId: "op_lamp_1" });
  expect(await world.snapshot()).toEqual({ calls: { switch_on: 1 }, failures: { switch_on: 2 }, systems: { lamp: { on: true } } });

  const replay = await executeTool(switchOn, {}, scope("call_a"));
  expect(replay).toMatchObject({ ok: true, externalOperationId: "op_lamp_1" });
  expect((await world.snapshot()).calls).toEqual({ switch_on: 1 });
});

it("a call still in its simulated latency when the tool times out is never performed", async () => {
  const world = openWorld({ db, env: { AGENTRT_SIM_LATENCY_MS: "60000" } });
  const outcome = await executeTool(switchOn, {}, scope("call_b"));
  expect(outcome).toMatchObject({ ok: false, error: { code: "TOOL_TIMEOUT" }, externalOperationId: undefined });
  expect(await world.snapshot()).toEqual({ calls: {}, failures: {}, systems: {} });
});
