// The simulated world's behaviour, run on every storage backend (sim-world.sqlite.test.ts, sim-world.postgres.test.ts).
import { afterEach, describe, expect, it } from "vitest";
import { isTransientError } from "../../../src/errors.js";
import { isDefiniteFailure } from "../../../src/ledger/call.js";
import { SimulatedFaultError } from "../../../src/testing/sim-fault.js";
import type { SimSystem, SimWorld } from "../../../src/testing/sim-world.js";

/** One database for a test: `connect` opens another connection's world on it; `close` closes them all. */
export interface SimWorldBackend {
  connect(env?: NodeJS.ProcessEnv): SimWorld;
  close(): Promise<void>;
}

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

/** Registers the SimWorld behaviour tests against the backend `open` makes (a fresh, empty database per test). */
export function describeSimWorldConformance(name: string, open: () => Promise<SimWorldBackend>): void {
  describe(`SimWorld (${name})`, () => {
    const opened: SimWorldBackend[] = [];
    const backend = async () => {
      const made = await open();
      opened.push(made);
      return made;
    };
    afterEach(async () => {
      for (const made of opened.splice(0)) await made.close();
    });

    it("performs a keyed side effect once and replays it for the same key", async () => {
      const world = (await backend()).connect();
      const first = await increment(world, "run1:call1:1");
      const again = await increment(world, "run1:call1:1");
      const other = await increment(world, "run1:call2:1");

      expect(first).toEqual({ result: { value: 1, operationId: "op_counter_1" }, operationId: "op_counter_1", replayed: false });
      expect(again).toEqual({ ...first, replayed: true });
      expect(other.operationId).toBe("op_counter_2");
      expect(await world.snapshot()).toEqual({ calls: { increment: 2 }, failures: {}, systems: { counter: { value: 2 } } });
    });

    it("dedupes across connections to the same database", async () => {
      const { connect } = await backend();
      await increment(connect(), "k");
      const replay = await increment(connect(), "k");
      expect(replay.replayed).toBe(true);
      expect((await connect().snapshot()).calls).toEqual({ increment: 1 });
    });

    it("performs a key once when connections race on it, and loses no concurrent update", async () => {
      const { connect } = await backend();
      const worlds = Array.from({ length: 4 }, () => connect());
      const same = await Promise.all(worlds.flatMap((world) => [increment(world, "race"), increment(world, "race")]));
      expect(same.filter((outcome) => !outcome.replayed)).toHaveLength(1);
      expect(new Set(same.map((outcome) => outcome.operationId))).toEqual(new Set(["op_counter_1"]));
      const distinct = await Promise.all(worlds.flatMap((world, i) => [increment(world, `a${i}`), increment(world, `b${i}`), increment(world, undefined)]));
      expect(new Set(distinct.map((outcome) => outcome.operationId)).size).toBe(12);
      expect(await worlds[0]!.snapshot()).toEqual({ calls: { increment: 13 }, failures: {}, systems: { counter: { value: 13 } } });
    });

    it("counts reads without operation ids or dedupe", async () => {
      const world = (await backend()).connect();
      const a = await read(world);
      const b = await read(world);
      expect([a.result, a.operationId, b.replayed]).toEqual([0, undefined, false]);
      expect((await world.snapshot()).calls).toEqual({ read: 2 });
    });

    it("fails the first N calls of a tool, counted in the database across connections", async () => {
      const { connect } = await backend();
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
      expect(await second.snapshot()).toMatchObject({ calls: { increment: 1, read: 1 }, failures: { increment: 3 } });
    });

    it("waits AGENTRT_SIM_LATENCY_MS before performing", async () => {
      const world = (await backend()).connect({ AGENTRT_SIM_LATENCY_MS: "30" });
      const pending = increment(world, "slow");
      expect((await world.snapshot()).calls).toEqual({});
      await expect(pending).resolves.toMatchObject({ replayed: false });
      expect((await world.snapshot()).calls).toEqual({ increment: 1 });
    });

    it("aborts a call during its latency and never performs it, and says so (the ledger records a failure, not an unknown outcome)", async () => {
      const world = (await backend()).connect({ AGENTRT_SIM_LATENCY_MS: "60000" });
      const controller = new AbortController();
      const reason = new Error("run canceled");
      const pending = world.perform({ system: counter, tool: "increment", sideEffect: true, idempotencyKey: "x", signal: controller.signal }, () => 1);
      controller.abort(reason);
      const notPerformed = { name: "NotPerformedError", code: "CANCELED", performed: false, cause: reason };
      await expect(pending).rejects.toMatchObject(notPerformed);
      await expect(pending).rejects.toSatisfy(isDefiniteFailure);
      expect((await world.snapshot()).calls).toEqual({});
      const already = world.perform({ system: counter, tool: "read", sideEffect: false, signal: controller.signal }, () => 1);
      await expect(already).rejects.toMatchObject(notPerformed);
    });

    it("rolls back a failing effect without counting it", async () => {
      const world = (await backend()).connect();
      const failing = world.perform({ system: counter, tool: "increment", sideEffect: true, idempotencyKey: "bad" }, ({ state }) => {
        state.set("value", 99);
        throw new Error("refused");
      });
      await expect(failing).rejects.toThrow("refused");
      expect(await world.snapshot()).toEqual({ calls: {}, failures: {}, systems: {} });
      await expect(increment(world, "bad")).resolves.toMatchObject({ replayed: false, result: { value: 1 } });
    });

    it("registers seeds for snapshots and resets everything", async () => {
      const world = (await backend()).connect();
      await world.register({ name: "other", seed: { "item:b": 2, "item:a": { x: 1 } } });
      await increment(world, "k");
      expect((await world.snapshot()).systems).toEqual({ counter: { value: 1 }, other: { "item:a": { x: 1 }, "item:b": 2 } });
      await world.reset();
      expect(await world.snapshot()).toEqual({ calls: {}, failures: {}, systems: {} });
      const fresh = await increment(world, "k");
      expect(fresh).toMatchObject({ replayed: false, operationId: "op_counter_1", result: { value: 1 } });
    });

    it("lists state entries by prefix in key order, seeing the call's own writes", async () => {
      const world = (await backend()).connect();
      const listed = await world.perform({ system: counter, tool: "fill", sideEffect: true }, ({ state }) => {
        state.set("msg:2", "b");
        state.set("msg:1", "a");
        state.set("other", "c");
        state.set("Msg:0", "upper case sorts first");
        return { entries: state.entries<string>("msg:"), other: state.get<string>("other") };
      });
      expect(listed.result).toEqual({ entries: [["msg:1", "a"], ["msg:2", "b"]], other: "c" });
      expect(Object.keys((await world.snapshot()).systems.counter ?? {})).toEqual(["Msg:0", "msg:1", "msg:2", "other", "value"]);
    });

    it("keeps a stored value's JSON as written, objects' key order included", async () => {
      const world = (await backend()).connect();
      const value = { zeta: 1, alpha: [true, null, "☃"], mid: { b: 2, a: 1 } };
      await world.perform({ system: counter, tool: "store", sideEffect: true, idempotencyKey: "j" }, ({ state }) => state.set("doc", value));
      const stored = (await world.snapshot()).systems.counter?.doc;
      expect(JSON.stringify(stored)).toBe(JSON.stringify(value));
      const replayed = await world.perform({ system: counter, tool: "store", sideEffect: true, idempotencyKey: "j" }, () => "never");
      expect(replayed).toMatchObject({ replayed: true, result: null });
    });
  });
}
