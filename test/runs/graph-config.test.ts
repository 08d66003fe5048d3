import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { SqliteRunStore, validateGraphConfig } from "../../src/runs/index.js";

describe("validateGraphConfig", () => {
  it("keeps configurable keys and the recursion limit; nothing to store is undefined", async () => {
    expect(validateGraphConfig({ configurable: { model: "gpt-x" }, recursionLimit: 5 })).toEqual({ configurable: { model: "gpt-x" }, recursionLimit: 5 });
    expect(validateGraphConfig({ configurable: {} })).toBeUndefined();
    expect(validateGraphConfig(undefined)).toBeUndefined();
  });

  it("refuses the run's own keys, LangGraph's internal ones and a bad limit, naming them", async () => {
    for (const key of ["thread_id", "run_id", "user", "roles", "action_version", "fencing_token", "checkpoint_id", "thread_ts", "checkpoint_ns", "__pregel_x"]) {
      expect(() => validateGraphConfig({ configurable: { [key]: 1 } })).toThrow(`configurable.${key}`);
    }
    for (const limit of [0, 1.5, 10_001]) expect(() => validateGraphConfig({ recursionLimit: limit })).toThrow(/recursion limit/);
  });

  it("is stored with the run and read back; a bad one stores no run", async () => {
    const runs = SqliteRunStore.open(openDatabase(":memory:"));
    const run = await runs.create({ graphId: "g", config: { configurable: { tone: "dry" }, recursionLimit: 7 } });
    expect((await runs.get(run.runId)).config).toEqual({ configurable: { tone: "dry" }, recursionLimit: 7 });
    expect((await runs.create({ graphId: "g" })).config).toBeNull();
    await expect(runs.create({ graphId: "g", runId: "run_bad", config: { configurable: { user: "mallory" } } })).rejects.toThrow(/configurable.user/);
    expect(await runs.find("run_bad")).toBeUndefined();
  });
});
