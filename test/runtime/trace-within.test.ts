// On SQLite a run's outcome and its trace's end are one commit, and so are createAndClaim and its trace's start:
// a refused or rolled-back write leaves neither on disk and the recorder as it was (it records them later). A trace
// that cannot be written or read never stops the run's write: it commits alone and the trace follows after it.
import { describe, expect, it } from "vitest";
import type { SqliteDatabase } from "../../src/db/index.js";
import { LeaseLostError, Scheduler, type RunEvent, type RunLease, type RunRecord, type WithinTransaction } from "../../src/runs/index.js";
import { openTraceStore, type SqliteTraceStore, type TraceRecorder } from "../../src/trace/index.js";
import { outcomeTrace, startRecording, startWithClaim, type TraceDeps } from "../../src/runtime/trace-within.js";
import { syncStateChanges } from "../../src/runtime/state-changes.js";
import { freshStore, thrown } from "../runs/helpers.js";

function setup() {
  const { db, store, clock } = freshStore();
  const trace = openTraceStore(db, { otel: false, clock, onError: () => undefined });
  const deps: TraceDeps = { runs: store, recorder: (run, init) => trace.recorder(run.runId, { graph: run.graphId, init }) };
  // A deferred foreign key fails at COMMIT, after every statement of the transaction ran: a commit that fails.
  db.pragma("foreign_keys = ON");
  db.exec("CREATE TABLE t_parent (id INTEGER PRIMARY KEY); CREATE TABLE t_child (pid INTEGER REFERENCES t_parent(id) DEFERRABLE INITIALLY DEFERRED)");
  return { db, store, clock, trace, deps, scheduler: new Scheduler(store) };
}

/** `within`, then a write that makes the transaction's COMMIT fail. */
function failingCommit(db: SqliteDatabase, within: WithinTransaction): WithinTransaction {
  return (run, events) => {
    const hooks = within(run, events);
    db.prepare("INSERT INTO t_child (pid) VALUES (42)").run();
    return hooks;
  };
}

async function stored(trace: SqliteTraceStore, runId: string) {
  const spans = await trace.spans(runId);
  return {
    root: spans.find((s) => s.kind === "invoke_agent"),
    changes: spans.filter((s) => s.kind === "state_change").map((s) => s.name),
  };
}

async function claimedWithTrace(env: ReturnType<typeof setup>): Promise<{ run: RunRecord; recorder: TraceRecorder; lease: RunLease }> {
  const created = await env.store.create({ graphId: "g" });
  const claimed = (await env.scheduler.claimRun(created.runId, { workerId: "w1", leaseMs: 30_000 }))!;
  const recorder = await startRecording(env.deps, claimed.run);
  return { run: claimed.run, recorder, lease: claimed.lease };
}

describe("an outcome and its trace's end in one commit (SQLite)", () => {
  it("writes the run's outcome, its transition and the root's end together, with the spans pending before", async () => {
    const env = setup();
    const { run, recorder, lease } = await claimedWithTrace(env);
    const step = recorder.startStep("model_turn 1");
    step.end();
    expect(recorder.openSpans("step")).toEqual([]);
    const traced = outcomeTrace(recorder);
    const after = await lease.transition("SUCCEEDED", { result: 1, within: traced.within });
    expect(after.status).toBe("SUCCEEDED");
    expect(traced.recorded).toBe(true);
    const { root, changes } = await stored(env.trace, run.runId);
    expect(root).toMatchObject({ status: "ok" });
    expect(changes).toEqual(["QUEUED → RUNNING", "RUNNING → SUCCEEDED"]);
    expect((await env.trace.spans(run.runId)).find((s) => s.kind === "step")).toMatchObject({ status: "ok" });
  });

  it("a refused (fenced) outcome writes no trace end, and the recorder ends the trace later", async () => {
    const env = setup();
    const { run, recorder, lease } = await claimedWithTrace(env);
    await env.store.cancel(run.runId, { actor: "cli" });
    const traced = outcomeTrace(recorder);
    expect(await thrown(() => lease.transition("SUCCEEDED", { within: traced.within }))).toBeInstanceOf(LeaseLostError);
    expect(traced.recorded).toBe(false);
    expect((await stored(env.trace, run.runId)).root).toMatchObject({ status: "running", endMs: null });
    recorder.recordStateChange("RUNNING", "CANCELED");
    await recorder.flush();
    const after = await stored(env.trace, run.runId);
    expect(after.root).toMatchObject({ status: "canceled" });
    expect(after.changes).toEqual(["QUEUED → RUNNING", "RUNNING → CANCELED"]);
  });

  it("a commit that fails leaves neither an ended trace nor an ended run, and the recorder as it was", async () => {
    const env = setup();
    const { run, recorder, lease } = await claimedWithTrace(env);
    const pendingStep = recorder.startStep("model_turn 1");
    pendingStep.end();
    const traced = outcomeTrace(recorder);
    expect(await thrown(() => lease.transition("SUCCEEDED", { result: 1, within: failingCommit(env.db, traced.within) }))).toMatchObject({ code: "SQLITE_CONSTRAINT_FOREIGNKEY" });
    expect(traced.recorded).toBe(false);
    expect((await env.store.get(run.runId)).status).toBe("RUNNING");
    expect(env.db.inTransaction).toBe(false);
    const before = await stored(env.trace, run.runId);
    expect(before.root).toMatchObject({ status: "running", endMs: null });
    expect(before.changes).toEqual(["QUEUED → RUNNING"]);

    // The lease still holds: the same outcome again commits with its trace, each transition recorded once.
    const again = outcomeTrace(recorder);
    expect((await lease.transition("SUCCEEDED", { result: 1, within: again.within })).status).toBe("SUCCEEDED");
    const after = await stored(env.trace, run.runId);
    expect(after.root).toMatchObject({ status: "ok" });
    expect(after.changes).toEqual(["QUEUED → RUNNING", "RUNNING → SUCCEEDED"]);
    // The step pending before the failed commit was marked again and written with the second one.
    expect((await env.trace.spans(run.runId)).find((s) => s.kind === "step")).toMatchObject({ status: "ok" });
  });
});

describe("createAndClaim and the trace's start in one commit (SQLite)", () => {
  it("writes the run, its claim, the root span and the claim's transition together", async () => {
    const env = setup();
    const start = startWithClaim(env.deps);
    const { claimed } = await env.scheduler.createAndClaim({ graphId: "g" }, { workerId: "w1", leaseMs: 30_000 }, start.within);
    const recorder = await start.recorder(claimed!.run);
    expect(recorder.resumed).toBe(false);
    const { root, changes } = await stored(env.trace, claimed!.run.runId);
    expect(root).toMatchObject({ status: "running", spanId: recorder.rootId });
    expect(changes).toEqual(["QUEUED → RUNNING"]);
  });

  it("hands its callback the run's event log as stored (the events it wrote, ids included)", async () => {
    const env = setup();
    let seen: readonly RunEvent[] = [];
    const { claimed } = await env.scheduler.createAndClaim({ graphId: "g" }, { workerId: "w1", leaseMs: 30_000 }, (_run, events) => {
      seen = events();
    });
    expect(seen).toEqual(await env.store.events(claimed!.run.runId));
    expect(seen.map((e) => `${e.from ?? ""}→${e.to}`)).toEqual(["→QUEUED", "QUEUED→RUNNING"]);
  });

  it("a commit that fails leaves no run and no trace, and the recorder is discarded", async () => {
    const env = setup();
    // Another run's pending span is not taken into the failed transaction: it is written later all the same.
    const other = await env.trace.recorder("run_other");
    other.startStep("elsewhere").end();
    const start = startWithClaim(env.deps);
    const failing = failingCommit(env.db, start.within);
    expect(await thrown(() => env.scheduler.createAndClaim({ graphId: "g", runId: "run_atomic" }, { workerId: "w1", leaseMs: 30_000 }, failing))).toMatchObject({ code: "SQLITE_CONSTRAINT_FOREIGNKEY" });
    expect(await env.store.find("run_atomic")).toBeUndefined();
    expect(await env.trace.hasRun("run_atomic")).toBe(false);
    await env.trace.flush();
    expect((await env.trace.spans("run_other")).find((s) => s.kind === "step")).toMatchObject({ name: "elsewhere", status: "ok" });
    // The discarded recorder is not handed out again: the run's next recorder makes a new root.
    const fresh = await env.trace.recorder("run_atomic");
    expect(fresh.resumed).toBe(false);
    expect((await env.trace.spans("run_atomic")).filter((s) => s.kind === "invoke_agent")).toHaveLength(1);
  });
});

describe("a trace that fails inside the run's commit (SQLite)", () => {
  const REFUSE_CHANGES = "CREATE TRIGGER refuse_changes BEFORE INSERT ON spans WHEN NEW.kind = 'state_change' BEGIN SELECT RAISE(ABORT, 'span write refused'); END";

  it("a span write refused inside the outcome's transaction leaves the outcome to commit alone and the trace to follow", async () => {
    const env = setup();
    const { run, recorder, lease } = await claimedWithTrace(env);
    env.db.exec(REFUSE_CHANGES);
    const traced = outcomeTrace(recorder);
    const after = await lease.transition("SUCCEEDED", { result: 1, within: traced.within });
    expect(after.status).toBe("SUCCEEDED");
    // Not recorded: the caller records the transitions after the commit, as on PostgreSQL.
    expect(traced.recorded).toBe(false);
    expect((await stored(env.trace, run.runId)).root).toMatchObject({ status: "running", endMs: null });
    env.db.exec("DROP TRIGGER refuse_changes");
    await syncStateChanges(env.store, recorder, after);
    await recorder.flush();
    const { root, changes } = await stored(env.trace, run.runId);
    expect(root).toMatchObject({ status: "ok" });
    expect(changes).toEqual(["QUEUED → RUNNING", "RUNNING → SUCCEEDED"]);
  });

  it("a trace read that throws inside the outcome's transaction does not roll the outcome back", async () => {
    const env = setup();
    const { run, lease, recorder } = await claimedWithTrace(env);
    env.db.exec("ALTER TABLE spans RENAME TO spans_gone");
    const traced = outcomeTrace(recorder);
    expect((await lease.transition("SUCCEEDED", { result: 1, within: traced.within })).status).toBe("SUCCEEDED");
    expect(traced.recorded).toBe(false);
    expect((await env.store.get(run.runId)).status).toBe("SUCCEEDED");
    expect(env.db.inTransaction).toBe(false);
  });

  it("a trace start refused inside createAndClaim leaves the claim to commit and the trace to start after it", async () => {
    const env = setup();
    env.db.exec(REFUSE_CHANGES);
    const start = startWithClaim(env.deps);
    const { claimed } = await env.scheduler.createAndClaim({ graphId: "g", runId: "run_claimed" }, { workerId: "w1", leaseMs: 30_000 }, start.within);
    expect(claimed?.run.status).toBe("RUNNING");
    expect(await env.trace.hasRun("run_claimed")).toBe(false);
    env.db.exec("DROP TRIGGER refuse_changes");
    const recorder = await start.recorder(claimed!.run);
    await recorder.flush();
    const { root, changes } = await stored(env.trace, "run_claimed");
    expect(root).toMatchObject({ status: "running", spanId: recorder.rootId });
    expect(changes).toEqual(["QUEUED → RUNNING"]);
    expect((await env.trace.spans("run_claimed")).filter((s) => s.kind === "invoke_agent")).toHaveLength(1);
  });
});
