import { describe, expect, it } from "vitest";
import {
  IllegalTransitionError,
  RUN_STATUSES,
  RUN_TRANSITIONS,
  Scheduler,
  assertTransition,
  canTransition,
  isTerminal,
  isWaiting,
  type RunLease,
  type RunStatus,
  type SqliteRunStore,
} from "../../src/runs/index.js";
import { freshStore, thrown } from "./helpers.js";

const LEGAL: ReadonlyArray<[RunStatus, RunStatus]> = [
  ["QUEUED", "RUNNING"], ["QUEUED", "CANCELED"], ["QUEUED", "EXPIRED"],
  ["RUNNING", "WAITING_INPUT"], ["RUNNING", "WAITING_APPROVAL"], ["RUNNING", "RETRYING"],
  ["RUNNING", "SUCCEEDED"], ["RUNNING", "FAILED"], ["RUNNING", "CANCELED"], ["RUNNING", "EXPIRED"],
  ["WAITING_INPUT", "RUNNING"], ["WAITING_INPUT", "QUEUED"], ["WAITING_INPUT", "CANCELED"], ["WAITING_INPUT", "EXPIRED"],
  ["WAITING_APPROVAL", "RUNNING"], ["WAITING_APPROVAL", "QUEUED"], ["WAITING_APPROVAL", "CANCELED"], ["WAITING_APPROVAL", "EXPIRED"],
  ["RETRYING", "RUNNING"], ["RETRYING", "FAILED"], ["RETRYING", "CANCELED"], ["RETRYING", "EXPIRED"],
];
const isLegal = (from: RunStatus, to: RunStatus) => LEGAL.some(([f, t]) => f === from && t === to);
const ALL_PAIRS = RUN_STATUSES.flatMap((from) => RUN_STATUSES.map((to) => [from, to] as const));

describe("the transition table", () => {
  it("is exactly the documented lifecycle", async () => {
    for (const [from, to] of ALL_PAIRS) expect(canTransition(from, to), `${from} → ${to}`).toBe(isLegal(from, to));
    expect(Object.keys(RUN_TRANSITIONS).sort()).toEqual([...RUN_STATUSES].sort());
  });

  it("classifies terminal and waiting statuses", async () => {
    expect(RUN_STATUSES.filter(isTerminal)).toEqual(["SUCCEEDED", "FAILED", "CANCELED", "EXPIRED"]);
    expect(RUN_STATUSES.filter(isWaiting)).toEqual(["WAITING_INPUT", "WAITING_APPROVAL"]);
  });

  it("assertTransition throws a coded IllegalTransitionError", async () => {
    const error = await thrown(() => assertTransition("SUCCEEDED", "RUNNING", "run_x"));
    expect(error).toBeInstanceOf(IllegalTransitionError);
    expect(error).toMatchObject({ code: "ILLEGAL_TRANSITION", from: "SUCCEEDED", to: "RUNNING" });
  });
});

/** Puts a fresh run into `status` through legal moves only. */
async function runIn(store: SqliteRunStore, scheduler: Scheduler, status: RunStatus): Promise<{ runId: string; lease: RunLease | undefined }> {
  const { runId } = await store.create({ graphId: "g" });
  if (status === "QUEUED") return { runId, lease: undefined };
  const claimed = await scheduler.claimRun(runId, { workerId: "w1", leaseMs: 60_000 });
  if (claimed === undefined) throw new Error("claim failed");
  if (status !== "RUNNING") await claimed.lease.transition(status);
  return { runId, lease: status === "RUNNING" ? claimed.lease : undefined };
}

async function attempt(store: SqliteRunStore, scheduler: Scheduler, runId: string, lease: RunLease | undefined, to: RunStatus): Promise<void> {
  if (to === "RUNNING") {
    const claimed = await scheduler.claimRun(runId, { workerId: "w2", leaseMs: 60_000 });
    if (claimed === undefined) throw new IllegalTransitionError({ runId, from: "RUNNING", to });
  } else if (lease !== undefined) {
    await lease.transition(to);
  } else {
    await store.transition(runId, to);
  }
}

describe("the run store applies the table", () => {
  // One file for every pair: each pair works on its own fresh run.
  const { store } = freshStore();
  const scheduler = new Scheduler(store);

  it.each(ALL_PAIRS)("%s → %s", async (from, to) => {
    const { runId, lease } = await runIn(store, scheduler, from);
    const before = { run: await store.get(runId), events: await store.events(runId) };
    if (isLegal(from, to)) {
      await attempt(store, scheduler, runId, lease, to);
      expect((await store.get(runId)).status).toBe(to);
      expect((await store.events(runId)).at(-1)).toMatchObject({ from, to });
      expect(await store.events(runId)).toHaveLength(before.events.length + 1);
    } else {
      const error = await thrown(() => attempt(store, scheduler, runId, lease, to));
      expect(error).toBeInstanceOf(IllegalTransitionError);
      expect({ run: await store.get(runId), events: await store.events(runId) }).toEqual(before);
    }
  });

  it("enters RUNNING only through a claim", async () => {
    const { runId } = await store.create({ graphId: "g" });
    expect(await thrown(() => store.transition(runId, "RUNNING"))).toMatchObject({ code: "ILLEGAL_TRANSITION" });
    expect((await store.get(runId)).status).toBe("QUEUED");
  });

  it("lets an operator cancel a RUNNING run without the lease, revoking it", async () => {
    const { runId, lease } = await runIn(store, scheduler, "RUNNING");
    await store.cancel(runId, { actor: "cli", reason: "user asked" });
    expect(await store.get(runId)).toMatchObject({ status: "CANCELED", lease: null, errorCode: "CANCELED" });
    expect(await thrown(() => lease!.transition("SUCCEEDED"))).toMatchObject({ code: "LEASE_LOST", reason: "canceled" });
    expect((await store.get(runId)).status).toBe("CANCELED");
  });
});
