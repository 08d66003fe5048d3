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
  it("is exactly the documented lifecycle", () => {
    for (const [from, to] of ALL_PAIRS) expect(canTransition(from, to), `${from} → ${to}`).toBe(isLegal(from, to));
    expect(Object.keys(RUN_TRANSITIONS).sort()).toEqual([...RUN_STATUSES].sort());
  });

  it("classifies terminal and waiting statuses", () => {
    expect(RUN_STATUSES.filter(isTerminal)).toEqual(["SUCCEEDED", "FAILED", "CANCELED", "EXPIRED"]);
    expect(RUN_STATUSES.filter(isWaiting)).toEqual(["WAITING_INPUT", "WAITING_APPROVAL"]);
  });

  it("assertTransition throws a coded IllegalTransitionError", () => {
    const error = thrown(() => assertTransition("SUCCEEDED", "RUNNING", "run_x"));
    expect(error).toBeInstanceOf(IllegalTransitionError);
    expect(error).toMatchObject({ code: "ILLEGAL_TRANSITION", from: "SUCCEEDED", to: "RUNNING" });
  });
});

/** Puts a fresh run into `status` through legal moves only. */
function runIn(store: SqliteRunStore, scheduler: Scheduler, status: RunStatus): { runId: string; lease: RunLease | undefined } {
  const { runId } = store.create({ graphId: "g" });
  if (status === "QUEUED") return { runId, lease: undefined };
  const claimed = scheduler.claimRun(runId, { workerId: "w1", leaseMs: 60_000 });
  if (claimed === undefined) throw new Error("claim failed");
  if (status !== "RUNNING") claimed.lease.transition(status);
  return { runId, lease: status === "RUNNING" ? claimed.lease : undefined };
}

function attempt(store: SqliteRunStore, scheduler: Scheduler, runId: string, lease: RunLease | undefined, to: RunStatus): void {
  if (to === "RUNNING") {
    const claimed = scheduler.claimRun(runId, { workerId: "w2", leaseMs: 60_000 });
    if (claimed === undefined) throw new IllegalTransitionError({ runId, from: "RUNNING", to });
  } else if (lease !== undefined) {
    lease.transition(to);
  } else {
    store.transition(runId, to);
  }
}

describe("the run store applies the table", () => {
  // One file for every pair: each pair works on its own fresh run.
  const { store } = freshStore();
  const scheduler = new Scheduler(store);

  it.each(ALL_PAIRS)("%s → %s", (from, to) => {
    const { runId, lease } = runIn(store, scheduler, from);
    const before = { run: store.get(runId), events: store.events(runId) };
    if (isLegal(from, to)) {
      attempt(store, scheduler, runId, lease, to);
      expect(store.get(runId).status).toBe(to);
      expect(store.events(runId).at(-1)).toMatchObject({ from, to });
      expect(store.events(runId)).toHaveLength(before.events.length + 1);
    } else {
      const error = thrown(() => attempt(store, scheduler, runId, lease, to));
      expect(error).toBeInstanceOf(IllegalTransitionError);
      expect({ run: store.get(runId), events: store.events(runId) }).toEqual(before);
    }
  });

  it("enters RUNNING only through a claim", () => {
    const { runId } = store.create({ graphId: "g" });
    expect(thrown(() => store.transition(runId, "RUNNING"))).toMatchObject({ code: "ILLEGAL_TRANSITION" });
    expect(store.get(runId).status).toBe("QUEUED");
  });

  it("lets an operator cancel a RUNNING run without the lease, revoking it", () => {
    const { runId, lease } = runIn(store, scheduler, "RUNNING");
    store.cancel(runId, { actor: "cli", reason: "user asked" });
    expect(store.get(runId)).toMatchObject({ status: "CANCELED", lease: null, errorCode: "CANCELED" });
    expect(thrown(() => lease!.transition("SUCCEEDED"))).toMatchObject({ code: "LEASE_LOST", reason: "canceled" });
    expect(store.get(runId).status).toBe("CANCELED");
  });
});
