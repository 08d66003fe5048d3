// The shared limit state on the machine's PostgreSQL, seen from two pools on one schema (two "processes"): a token
// bucket both drain together, concurrency slots neither can overbook (and a crashed holder's slot freeing itself), a
// waiter in one woken by a release in the other, and a breaker opened by one refusing calls in the other.
import { afterAll, describe, expect, it } from "vitest";
import { parseDatabaseTarget, type PostgresTarget } from "../../src/db/database-target.js";
import { PostgresDatabase } from "../../src/db/postgres/index.js";
import { StorageError } from "../../src/errors.js";
import { PostgresLimitStore } from "../../src/resilience/postgres-limits.js";
import { SharedToolLimits } from "../../src/resilience/shared-tool-limits.js";
import { useTestSchema, withClient } from "../helpers/postgres.js";
import { maxInWindow } from "./time-windows.js";

const schema = useTestSchema(import.meta.url);
const dbs: PostgresDatabase[] = [];

// The server's connections are shared with other test files: a few per pool, and two pools for the whole file.
function database(): PostgresDatabase {
  const db = new PostgresDatabase(parseDatabaseTarget(schema.url) as PostgresTarget, { maxConnections: 4 });
  dbs.push(db);
  return db;
}

let pools: [PostgresDatabase, PostgresDatabase] | undefined;

/** Two stores on two pools of one schema, as two processes have them; `ownPools` for a test that closes one. */
function twoProcesses(options: ConstructorParameters<typeof PostgresLimitStore>[1] = {}, ownPools = false): [PostgresLimitStore, PostgresLimitStore] {
  const [a, b] = ownPools ? [database(), database()] : (pools ??= [database(), database()]);
  return [new PostgresLimitStore(a, options), new PostgresLimitStore(b, options)];
}

afterAll(async () => {
  await Promise.all(dbs.map((db) => db.close()));
});

describe("PostgresLimitStore", () => {
  it("one token bucket for both: its burst is granted once in all, then each says how long until the next token", async () => {
    const [a, b] = twoProcesses();
    // 0.5 tokens/s: a refill between these statements would need a two-second stall.
    const bucket = { ratePerSecond: 0.5, burst: 3 };
    const waits = [await a.takeToken("t_burst", bucket), await b.takeToken("t_burst", bucket), await a.takeToken("t_burst", bucket)];
    expect(waits).toEqual([0, 0, 0]);
    const next = [await b.takeToken("t_burst", bucket), await a.takeToken("t_burst", bucket)];
    for (const wait of next) {
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(2000);
    }
  });

  it("two processes calling through one 5/s bucket (burst 2) never exceed it, and both get calls", async () => {
    const [a, b] = twoProcesses();
    const limits = [new SharedToolLimits(a), new SharedToolLimits(b)];
    const spec = { rate: { ratePerSecond: 5, burst: 2 } };
    const granted: Array<{ at: number; by: number }> = [];
    // Each process runs 8 callers; each call notes the time it was let through (one machine, one clock).
    await Promise.all(limits.flatMap((limit, by) => Array.from({ length: 8 }, () =>
      limit.run("t_rate", spec, async () => granted.push({ at: Date.now(), by })))));
    expect(granted).toHaveLength(16);
    expect(new Set(granted.map((g) => g.by))).toEqual(new Set([0, 1]));
    const times = granted.map((g) => g.at).sort((x, y) => x - y);
    // 5/s and burst 2 let at most 2 + 4 calls through in any half-open second; 2 + 5 leaves 200 ms for the noting.
    expect(maxInWindow(times, 1000)).toBeLessThanOrEqual(spec.rate.burst + spec.rate.ratePerSecond);
    // Not vacuous: the 16 wanted to go at once; the bucket spread them over (16 - 2) / 5 = 2.8 s (less one call).
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(2600);
  });

  it("slots: two processes never hold more than the limit, a waiter in one is woken by a release in the other", async () => {
    const [a, b] = twoProcesses({ slotPollMs: 60_000 });
    const first = await a.tryHoldSlot("t_slots", 2);
    const second = await b.tryHoldSlot("t_slots", 2);
    expect(typeof first).toBe("object");
    expect(typeof second).toBe("object");
    expect(await a.tryHoldSlot("t_slots", 2)).toBe("full");
    expect(await b.tryHoldSlot("t_slots", 2)).toBe("full");
    // The poll is a minute: only the NOTIFY of a's release can wake b's waiter within the test.
    const waiting = new SharedToolLimits(b).run("t_slots", { concurrency: 2 }, async () => "ran");
    await new Promise((resolve) => setTimeout(resolve, 200));
    if (typeof first === "object") await first.release();
    expect(await waiting).toBe("ran");
    if (typeof second === "object") await second.release();
  });

  it("many callers in two processes through a concurrency cap of 3: never more than 3 in flight, and 3 reached", async () => {
    const [a, b] = twoProcesses({ slotPollMs: 60_000 });
    const limits = [new SharedToolLimits(a), new SharedToolLimits(b)];
    let inFlight = 0;
    let most = 0;
    await Promise.all(limits.flatMap((limit) => Array.from({ length: 10 }, () =>
      limit.run("t_cap", { concurrency: 3 }, async () => {
        most = Math.max(most, ++inFlight);
        // The first holders wait for each other until three are in: the cap is reached however slow the machine.
        await until(() => most >= 3);
        await new Promise((resolve) => setTimeout(resolve, 10));
        inFlight--;
      }))));
    expect(most).toBe(3);
  });

  it("a global cap is one more key, held after the tool's own", async () => {
    const [a, b] = twoProcesses({ slotPollMs: 60_000 });
    const limits = [new SharedToolLimits(a, { globalConcurrency: 2 }), new SharedToolLimits(b, { globalConcurrency: 2 })];
    let inFlight = 0;
    let most = 0;
    await Promise.all(limits.flatMap((limit, i) => Array.from({ length: 6 }, () =>
      limit.run(i === 0 ? "t_g1" : "t_g2", { concurrency: 5 }, async () => {
        most = Math.max(most, ++inFlight);
        await until(() => most >= 2);
        await new Promise((resolve) => setTimeout(resolve, 10));
        inFlight--;
      }))));
    expect(most).toBe(2);
  });

  it("a crashed holder's slot frees itself after its lease (never renewed), a waiter's abort leaves the wait", async () => {
    const [a, b] = twoProcesses({ slotLeaseMs: 1200, slotPollMs: 100 }, true);
    expect(typeof (await a.tryHoldSlot("t_crash", 1))).toBe("object");
    // While a renews its slot, b waits until its caller gives up.
    const aborted = new AbortController();
    const refused = new SharedToolLimits(b).run("t_crash", { concurrency: 1 }, async () => "no", aborted.signal);
    await new Promise((resolve) => setTimeout(resolve, 300));
    aborted.abort();
    await expect(refused).rejects.toMatchObject({ code: "CANCELED" });
    // The "crash": a's renewals stop with its pool; its row stays until the lease runs out.
    await a.db.close();
    expect(await new SharedToolLimits(b).run("t_crash", { concurrency: 1 }, async () => "after the lease")).toBe("after the lease");
    const { rows } = await withClient((c) => c.query(`SELECT count(*)::int AS n FROM ${schema.name}.limit_slots WHERE key = 't_crash'`));
    expect(rows[0].n).toBe(0);
  });

  it("a breaker opened by failures in one process refuses calls in the other; after the cool-down one probe in all", async () => {
    const [a, b] = twoProcesses();
    const breakerA = new SharedToolLimits(a).breaker("t_breaker", { failureThreshold: 2, cooldownMs: 400 });
    const breakerB = new SharedToolLimits(b).breaker("t_breaker", { failureThreshold: 2, cooldownMs: 400 });
    const fail = async () => {
      throw new Error("down");
    };
    await expect(breakerA.run(fail)).rejects.toThrow("down");
    await expect(breakerA.run(fail)).rejects.toThrow("down");
    let called = 0;
    await expect(breakerB.run(async () => called++)).rejects.toMatchObject({ code: "CIRCUIT_OPEN" });
    expect(called).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 450));
    // Half-open: a's probe is in flight, so b is refused; the probe's success closes the circuit for both.
    let releaseProbe!: () => void;
    const probe = breakerA.run(() => new Promise<string>((resolve) => (releaseProbe = () => resolve("probed"))));
    await until(() => releaseProbe !== undefined);
    await expect(breakerB.run(async () => called++)).rejects.toMatchObject({ code: "CIRCUIT_OPEN" });
    releaseProbe();
    expect(await probe).toBe("probed");
    await breakerB.run(async () => called++);
    expect(called).toBe(1);
  });

  it("a canceled call does not count as a failure", async () => {
    const [a] = twoProcesses();
    const breaker = new SharedToolLimits(a).breaker("t_cancel", { failureThreshold: 1 });
    const canceled = Object.assign(new Error("stop"), { code: "CANCELED" });
    await expect(breaker.run(() => Promise.reject(canceled))).rejects.toBe(canceled);
    expect(await breaker.run(async () => "still closed")).toBe("still closed");
  });

  it("a call cut short by its run's lost lease (the caller's signal aborted, any error code) does not count either", async () => {
    const [a, b] = twoProcesses();
    const breaker = new SharedToolLimits(a).breaker("t_lease", { failureThreshold: 1 });
    const lost = new AbortController();
    const leaseLost = Object.assign(new Error("lease lost"), { code: "LEASE_LOST" });
    lost.abort(leaseLost);
    await expect(breaker.run(() => Promise.reject(leaseLost), lost.signal)).rejects.toBe(leaseLost);
    expect(await new SharedToolLimits(b).breaker("t_lease", { failureThreshold: 1 }).run(async () => "still closed")).toBe("still closed");
    // The same failure without the aborted signal is the tool failing: the circuit opens in the other process.
    await expect(breaker.run(() => Promise.reject(leaseLost))).rejects.toBe(leaseLost);
    await expect(new SharedToolLimits(b).breaker("t_lease", { failureThreshold: 1 }).run(async () => "x")).rejects.toMatchObject({ code: "CIRCUIT_OPEN" });
  });

  it("a call that lost agentrt's own database (a restart) does not count, in any process", async () => {
    const [a, b] = twoProcesses();
    const breaker = new SharedToolLimits(a).breaker("t_restart", { failureThreshold: 1 });
    const lost = new StorageError("DB_CONNECTION_LOST", "connection to PostgreSQL lost (terminating connection due to administrator command)");
    await expect(breaker.run(() => Promise.reject(new Error("world", { cause: lost })))).rejects.toThrow("world");
    expect(await new SharedToolLimits(b).breaker("t_restart", { failureThreshold: 1 }).run(async () => "still closed")).toBe("still closed");
    // Another failure is the tool's: the circuit opens in the other process.
    await expect(breaker.run(() => Promise.reject(new Error("down")))).rejects.toThrow("down");
    await expect(new SharedToolLimits(b).breaker("t_restart", { failureThreshold: 1 }).run(async () => "x")).rejects.toMatchObject({ code: "CIRCUIT_OPEN" });
  });
});

async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 5));
}
