// Conformance: a create's idempotency key, stored in the create's transaction under a unique (user, key) — a repeat
// or a racing duplicate (another connection) is refused with the first run, another user's key is independent, a key
// past IDEMPOTENCY_TTL_MS is pruned and names a new run; and the conditional cancel a supersede uses.
import { expect, it } from "vitest";
import { IDEMPOTENCY_TTL_MS, IdempotencyKeyTakenError, Scheduler } from "../../../src/runs/index.js";
import { claim, noCaps, rejection, storeTest, type OpenRunStore } from "./run-store-shared.js";

const KEY = { key: "retry-7f3a", requestHash: "h1" };

/** Idempotency keys and the conditional cancel. */
export function idempotencyConformance(open: OpenRunStore): void {
  it("stores a key with its run: a repeat is refused naming the first run, and nothing else is written", storeTest(open, async ({ store }) => {
    const first = await store.create({ graphId: "g", userId: "ann", idempotency: KEY });
    expect(await store.findIdempotent("ann", KEY.key)).toEqual({ runId: first.runId, requestHash: "h1" });
    const repeat = await rejection(store.create({ graphId: "g", userId: "ann", idempotency: { ...KEY, requestHash: "h2" } }));
    expect(repeat).toBeInstanceOf(IdempotencyKeyTakenError);
    expect(repeat).toMatchObject({ code: "IDEMPOTENCY_KEY_REUSED", holder: { runId: first.runId, requestHash: "h1" } });
    expect(await store.list({ userId: "ann" })).toHaveLength(1);
    const claimed = await rejection(store.createAndClaim({ graphId: "g", userId: "ann", idempotency: KEY }, { ...claim, caps: noCaps }));
    expect(claimed).toMatchObject({ holder: { runId: first.runId } });
    expect(await store.list({ userId: "ann" })).toHaveLength(1);
  }));

  it("scopes a key per user", storeTest(open, async ({ store }) => {
    const ann = await store.create({ graphId: "g", userId: "ann", idempotency: KEY });
    const bob = await store.create({ graphId: "g", userId: "bob", idempotency: KEY });
    expect(bob.runId).not.toBe(ann.runId);
    expect((await store.findIdempotent("bob", KEY.key))?.runId).toBe(bob.runId);
    expect(await store.findIdempotent("carol", KEY.key)).toBeUndefined();
  }));

  it("lets one of two racing creates with one key (two connections) store it; the other learns the first run", storeTest(open, async ({ store, other }) => {
    const outcomes = await Promise.allSettled([
      store.create({ graphId: "g", userId: "ann", idempotency: KEY }),
      other.create({ graphId: "g", userId: "ann", idempotency: KEY }),
      other.createAndClaim({ graphId: "g", userId: "ann", idempotency: KEY }, { ...claim, caps: noCaps }),
    ]);
    const runs = await store.list({ userId: "ann" });
    expect(runs).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    for (const o of outcomes) if (o.status === "rejected") expect(o.reason).toMatchObject({ holder: { runId: runs[0]!.runId } });
  }));

  it("forgets a key after its time: pruned, and the key names a new run", storeTest(open, async ({ store, clock }) => {
    const first = await store.create({ graphId: "g", userId: "ann", idempotency: KEY });
    clock.advance(IDEMPOTENCY_TTL_MS - 1);
    expect((await store.findIdempotent("ann", KEY.key))?.runId).toBe(first.runId);
    clock.advance(1);
    expect(await store.findIdempotent("ann", KEY.key)).toBeUndefined();
    const second = await store.create({ graphId: "g", userId: "ann", idempotency: { ...KEY, requestHash: "h2" } });
    expect(second.runId).not.toBe(first.runId);
    expect(await store.findIdempotent("ann", KEY.key)).toEqual({ runId: second.runId, requestHash: "h2" });
  }));

  it("cancels with expect only while the run is still as expected, checked in the cancel's write", storeTest(open, async ({ store }) => {
    const { runId } = await store.create({ graphId: "g" });
    const { lease } = (await new Scheduler(store).claimNext(claim))!;
    const waiting = await lease.transition("WAITING_APPROVAL", { pending: [{ tool: "t" }] });
    const expected = { status: waiting.status, fencingToken: waiting.fencingToken };
    await store.resume(runId, { resume: { ok: true } });
    expect(await rejection(store.cancel(runId, { reason: "superseded", expect: expected }))).toMatchObject({ code: "RUN_NOT_WAITING" });
    expect((await store.get(runId)).status).toBe("QUEUED");
    expect((await store.events(runId)).map((e) => e.to)).not.toContain("CANCELED");
    expect(await store.cancel(runId, { expect: { status: "QUEUED", fencingToken: waiting.fencingToken } })).toMatchObject({ status: "CANCELED" });
  }));
}
