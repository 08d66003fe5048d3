import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type SqliteDatabase } from "../../src/db/index.js";
import { isTransientError } from "../../src/errors.js";
import { SimulatedFaultError } from "../../src/testing/sim-fault.js";
import { isDefiniteFailure } from "../../src/ledger/call.js";
import { SimWorld, type SimSystem } from "../../src/testing/sim-world.js";

const counter: SimSystem = { name: "counter", seed: { value: 0 } };

function increment(world: SimWorld, key: string | undefined) {
  return world.perform({ system: counter, tool: "increment", sideEffect: true, idempotencyKey: key }, ({ state, operationId }) => {
    const value = (state.get<number>("value") ?? 0) + 1;
    state.set("value", value);
    return { value, operationId };
  });
}

function read(world: SimWorld) {
  return world.perform({ system: counter, tool: "read", sideEffect: false }, ({ state }) => state.get<number>("value"));
}

describe("SimWorld", () => {
  let dir: string;
  let file: string;
  const open: SqliteDatabase[] = [];
  const connect = (env: NodeJS.ProcessEnv = {}) => {
    const db = openDatabase(file);
    open.push(db);
    return SimWorld.open(db, { env });
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "agentrt-sim-"));
    file = join(dir, "world.db");
  });
  afterEach(() => {
    for (const db of open.splice(0)) db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("performs a keyed side effect once and replays it for the same key", async () => {
    const world = connect();
    const first = await increment(world, "run1:call1:1");
    const again = await increment(world, "run1:call1:1");
    const other = await increment(world, "run1:call2:1");

    expect(first).toEqual({ result: { value: 1, operationId: "op_counter_1" }, operationId: "op_counter_1", replayed: false });
    expect(again).toEqual({ ...first, replayed: true });
    expect(other.operationId).toBe("op_counter_2");
    expect(world.snapshot()).toEqual({ calls: { increment: 2 }, failures: {}, systems: { counter: { value: 2 } } });
  });

  it("dedupes across connections to the same file", async () => {
    await increment(connect(), "k");
    const replay = await increment(connect(), "k");
    expect(replay.replayed).toBe(true);
    expect(connect().snapshot().calls).toEqual({ increment: 1 });
  });

  it("counts reads without operation ids or dedupe", async () => {
    const world = connect();
    const a = await read(world);
    const b = await read(world);
    expect([a.result, a.operationId, b.replayed]).toEqual([0, undefined, false]);
    expect(world.snapshot().calls).toEqual({ read: 2 });
  });

  it("fails the first N calls of a tool, counted in the file across connections", async () => {
    const env = { AGENTRT_SIM_FAULTS: "increment:3, read:0" };
    const first = connect(env);
    const error = await increment(first, "a").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SimulatedFaultError);
    expect(isTransientError(error)).toBe(true);
    expect((error as SimulatedFaultError).code).toBe("SIM_FAULT");
    expect((error as SimulatedFaultError).details).toMatchObject({ tool: "increment", attempt: 1, faults: 3 });

    const second = connect(env);
    await expect(increment(second, "a")).rejects.toBeInstanceOf(SimulatedFaultError);
    await expect(increment(second, "a")).rejects.toBeInstanceOf(SimulatedFaultError);
    const ok = await increment(second, "a");
    expect(ok).toMatchObject({ replayed: false, operationId: "op_counter_1" });
    await expect(read(second)).resolves.toMatchObject({ result: 1 });
    expect(second.snapshot()).toMatchObject({ calls: { increment: 1, read: 1 }, failures: { increment: 3 } });
  });

  it("waits AGENTRT_SIM_LATENCY_MS before performing", async () => {
    const world = connect({ AGENTRT_SIM_LATENCY_MS: "30" });
    const pending = increment(world, "slow");
    expect(world.snapshot().calls).toEqual({});
    await expect(pending).resolves.toMatchObject({ replayed: false });
    expect(world.snapshot().calls).toEqual({ increment: 1 });
  });

  it("aborts a call during its latency and never performs it, and says so (the ledger records a failure, not an unknown outcome)", async () => {
    const world = connect({ AGENTRT_SIM_LATENCY_MS: "60000" });
    const controller = new AbortController();
    const reason = new Error("run canceled");
    const pending = world.perform({ system: counter, tool: "increment", sideEffect: true, idempotencyKey: "x", signal: controller.signal }, () => 1);
    controller.abort(reason);
    const notPerformed = { name: "NotPerformedError", code: "CANCELED", performed: false, cause: reason };
    await expect(pending).rejects.toMatchObject(notPerformed);
    await expect(pending).rejects.toSatisfy(isDefiniteFailure);
    expect(world.snapshot().calls).toEqual({});
    const already = world.perform({ system: counter, tool: "read", sideEffect: false, signal: controller.signal }, () => 1);
    await expect(already).rejects.toMatchObject(notPerformed);
  });

  it("rolls back a failing effect without counting it", async () => {
    const world = connect();
    const failing = world.perform({ system: counter, tool: "increment", sideEffect: true, idempotencyKey: "bad" }, ({ state }) => {
      state.set("value", 99);
      throw new Error("refused");
    });
    await expect(failing).rejects.toThrow("refused");
    expect(world.snapshot()).toEqual({ calls: {}, failures: {}, systems: {} });
    await expect(increment(world, "bad")).resolves.toMatchObject({ replayed: false, result: { value: 1 } });
  });

  it("registers seeds for snapshots and resets everything", async () => {
    const world = connect();
    world.register({ name: "other", seed: { "item:b": 2, "item:a": { x: 1 } } });
    await increment(world, "k");
    expect(world.snapshot().systems).toEqual({ counter: { value: 1 }, other: { "item:a": { x: 1 }, "item:b": 2 } });
    world.reset();
    expect(world.snapshot()).toEqual({ calls: {}, failures: {}, systems: {} });
    const fresh = await increment(world, "k");
    expect(fresh).toMatchObject({ replayed: false, operationId: "op_counter_1", result: { value: 1 } });
  });

  it("lists state entries by prefix in key order", async () => {
    const world = connect();
    const listed = await world.perform({ system: counter, tool: "fill", sideEffect: true }, ({ state }) => {
      state.set("msg:2", "b");
      state.set("msg:1", "a");
      state.set("other", "c");
      return state.entries<string>("msg:");
    });
    expect(listed.result).toEqual([["msg:1", "a"], ["msg:2", "b"]]);
  });
});
