// Budgets are checked before each model call: a run over budget FAILS with a stable code and no call is made.
import { existsSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { Runtime } from "../../src/runtime/index.js";
import { counters, resetCounters } from "../fixtures/budget/graphs.js";
import { runCli } from "../helpers/cli.js";
import { runtimeSqlite } from "../../src/runtime/internals.js";

const CONFIG = fileURLToPath(new URL("../fixtures/budget/langgraph.json", import.meta.url));
const tempDb = () => join(mkdtempSync(join(tmpdir(), "agentrt-budget-")), "b.db");

let runtime: Runtime;
beforeEach(async () => {
  resetCounters();
  runtime = Runtime.open({ db: tempDb(), config: CONFIG });
});
afterEach(() => runtime.close());

const run = (budget: Record<string, number>) => runtime.submit({ graph: "looper", message: "count to three", budget });

describe("budgets, checked before each model call", () => {
  it("an unlimited run makes all four model calls (the counter sees the registry's model)", async () => {
    const view = await run({});
    expect(view).toMatchObject({ status: "SUCCEEDED", result: "counted to 3", usage: { model_calls: 4, steps: 7 } });
    expect(counters.modelCalls.looper).toBe(4);
  });

  it.each([
    ["maxModelCalls", 2, "BUDGET_MODEL_CALLS", 2],
    // turn 1 (step 1), count (2), turn 2 (3), count (4): a fifth step would pass 4.
    ["maxSteps", 4, "BUDGET_STEPS", 2],
    // Each turn's context is a few dozen tokens: the budget cannot hold even the first call's input.
    ["maxTokens", 5, "BUDGET_TOKENS", 0],
    // The scripted model's nominal price makes the first call's input cost more than this.
    ["maxCostUsd", 0.0000001, "BUDGET_COST", 0],
    ["deadlineMs", 0, "DEADLINE_EXCEEDED", 0],
  ])("%s %s stops the run FAILED %s after %i model calls", async (limit, max, code, calls) => {
    const view = await run({ [limit]: max });
    expect(view.status).toBe("FAILED");
    expect(view.error?.code).toBe(code);
    expect(counters.modelCalls.looper ?? 0).toBe(calls);
    expect(view.usage.model_calls).toBe(calls);
  });

  it("counts the tokens of the call about to be made, not only those already spent", async () => {
    // Two calls fit what was spent so far (≈ 2 × first input), but the third context is larger than what is left.
    const first = await run({});
    const spent = (await runtime.get(first.run_id)).usage.tokens;
    resetCounters();
    const view = await run({ maxTokens: Math.floor(spent / 2) });
    expect(view.error?.code).toBe("BUDGET_TOKENS");
    expect(view.error?.message).toMatch(/no further model call was made/);
    expect(view.usage.tokens).toBeLessThanOrEqual(Math.floor(spent / 2));
    expect(counters.modelCalls.looper).toBe(view.usage.model_calls);
  });

  it("counts usage stored by earlier attempts: a resumed run starts from its counters", async () => {
    const queued = await runtime.submit({ graph: "looper", message: "count", budget: { maxModelCalls: 3 }, queue: true });
    // As if an earlier attempt had made three calls before its worker died.
    runtimeSqlite(runtime).prepare("UPDATE runs SET model_calls = 3, steps = 5 WHERE run_id = ?").run(queued.run_id);
    const view = await runtime.start(queued.run_id);
    expect(view.error?.code).toBe("BUDGET_MODEL_CALLS");
    expect(counters.modelCalls.looper ?? 0).toBe(0);
  });
});

describe("agentrt run budget flags", () => {
  const env = (fn: () => Promise<void>) => async () => {
    const previous = process.env.AGENTRT_CONFIG;
    process.env.AGENTRT_CONFIG = CONFIG;
    try {
      await fn();
    } finally {
      if (previous === undefined) delete process.env.AGENTRT_CONFIG;
      else process.env.AGENTRT_CONFIG = previous;
    }
  };

  it("--max-model-calls stops the run: exit 1 with the code", env(async () => {
    const db = tempDb();
    const result = await runCli(["run", "looper", "--message", "count", "--max-model-calls", "1", "--db", db, "--json"]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.out)).toMatchObject({ status: "FAILED", error: { code: "BUDGET_MODEL_CALLS" }, usage: { model_calls: 1 } });
  }));

  it.each([
    ["--max-steps", "-1"], ["--max-steps", "2.5"], ["--max-model-calls", "many"], ["--max-tokens", "1e3"],
    ["--max-cost-usd", "abc"], ["--max-cost-usd", "-0.5"], ["--deadline-ms", ""],
  ])("%s %j is exit 2 with a one-line reason and no run", (flag, value) => env(async () => {
    const db = tempDb();
    const result = await runCli(["run", "looper", "--message", "count", `${flag}=${value}`, "--db", db]);
    expect(result.code).toBe(2);
    expect(result.errLines).toHaveLength(1);
    expect(result.err).toContain(flag);
    if (existsSync(db)) {
      const database = openDatabase(db);
      try {
        const tables = database.prepare("SELECT name FROM sqlite_master WHERE name = 'runs'").all();
        if (tables.length > 0) expect(database.prepare("SELECT count(*) AS n FROM runs").get()).toEqual({ n: 0 });
      } finally {
        database.close();
      }
    }
    expect(counters.modelCalls.looper ?? 0).toBe(0);
  })());

  it("the runtime refuses a bad budget too, before creating anything", async () => {
    await expect(runtime.submit({ graph: "looper", message: "x", budget: { maxSteps: -1 } })).rejects.toMatchObject({ code: "BAD_INPUT" });
    await expect(runtime.submit({ graph: "looper", message: "x", budget: { maxCostUsd: Number.NaN } })).rejects.toMatchObject({ code: "BAD_INPUT" });
    expect(await runtime.list()).toEqual([]);
  });
});
