// Cases run on SQLite (supersede-race.test.ts) and PostgreSQL (supersede-race.postgres.test.ts): new input whose
// listing of the thread saw a run waiting for approval, while an approval answered meanwhile moved it on (QUEUED, its
// action approved). The supersede must not cancel it: the approved rollback is performed exactly once, and the new
// input is handled by the thread's multitask strategy as for any queued run.
import { expect, it } from "vitest";
import type { RunFilter, RunRecord, RunStore } from "../../src/runs/index.js";
import { createRun } from "../../src/runtime/create-run.js";
import type { MultitaskStrategy } from "../../src/runtime/index.js";
import { runtimeInternals } from "../../src/runtime/internals.js";
import type { Runtime } from "../../src/runtime/index.js";
import { openWorld } from "../../src/testing/index.js";

const MESSAGE = "Why did the payments deploy fail? Roll back if needed.";
const NEW_INPUT = { messages: [{ role: "user", content: "Also tell me who deployed it." }] };

const rollbacks = async (rt: Runtime) => (await openWorld({ db: runtimeInternals(rt).storage.db }).snapshot()).calls.rollback_deployment ?? 0;

/** The run store, whose listing of runs is followed by `between` before the list is handed back. */
function listThen(runs: RunStore, between: () => Promise<unknown>): RunStore {
  return new Proxy(runs, {
    get(target, key) {
      if (key === "list") {
        return async (filter?: RunFilter): Promise<RunRecord[]> => {
          const listed = await target.list(filter);
          await between();
          return listed;
        };
      }
      const value: unknown = Reflect.get(target, key);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** New input on the thread of a run waiting for approval, with that run approved (queued) between the listing and the supersede. */
async function raceApproval(rt: Runtime, multitask: MultitaskStrategy) {
  const waiting = await rt.submit({ graph: "ops_rollback", message: MESSAGE, user: "alice" });
  expect(waiting.status).toBe("WAITING_APPROVAL");
  const action = waiting.pending[0]!;
  const approve = () => rt.approve(waiting.run_id, { actionId: action.action_id, argsHash: action.args_hash, by: "alice", queue: true });
  const deps = { runs: listThen(runtimeInternals(rt).runs, approve), cancel: rt.cancel.bind(rt) };
  const created = createRun(deps, { graph: "ops_rollback", input: NEW_INPUT, thread: waiting.thread_id, user: "alice", multitask, by: "alice" });
  return { waiting, created };
}

/** Registers the cases; `open` gives a runtime on an empty database of the backend. */
export function supersedeRaceCases(open: () => Promise<Runtime>): void {
  it("reject: the approved run is not superseded; the new input is refused THREAD_BUSY; the rollback runs once", async () => {
    const rt = await open();
    const { waiting, created } = await raceApproval(rt, "reject");
    await expect(created).rejects.toMatchObject({ code: "THREAD_BUSY" });
    expect((await rt.get(waiting.run_id)).status).toBe("QUEUED");
    expect(await rt.records.list({ threadId: waiting.thread_id })).toHaveLength(1);
    expect((await rt.start(waiting.run_id)).status).toBe("SUCCEEDED");
    expect(await rollbacks(rt)).toBe(1);
  });

  it("enqueue: the approved run is not superseded; the new run queues behind it and goes on after the rollback", async () => {
    const rt = await open();
    const { waiting, created } = await raceApproval(rt, "enqueue");
    const { run, behind, canceled } = await created;
    expect({ behind, canceled }).toEqual({ behind: [waiting.run_id], canceled: [] });
    const events = async () => (await runtimeInternals(rt).runs.events(waiting.run_id)).map((e) => e.to);
    expect(await events()).not.toContain("CANCELED");
    expect((await rt.start(waiting.run_id)).status).toBe("SUCCEEDED");
    expect(await rollbacks(rt)).toBe(1);
    expect(await events()).not.toContain("CANCELED");
    // The new run goes on from the thread's state once the approved one rests: it asks for its own approval.
    expect((await rt.start(run.runId)).status).not.toBe("CANCELED");
    expect(await rollbacks(rt)).toBe(1);
  });

  it("a run still waiting at the cancel is superseded, its pending action named as not performed", async () => {
    const rt = await open();
    const waiting = await rt.submit({ graph: "ops_rollback", message: MESSAGE, user: "alice" });
    const { canceled } = await rt.createRun({ graph: "ops_rollback", input: NEW_INPUT, thread: waiting.thread_id, user: "alice", by: "alice" });
    expect(canceled).toEqual([waiting.run_id]);
    const view = await rt.get(waiting.run_id);
    expect(view.status).toBe("CANCELED");
    expect(view.error?.message).toBe(`canceled by alice: superseded by new input on its thread; pending actions not performed: rollback_deployment (${waiting.pending[0]!.action_id})`);
    expect(await rollbacks(rt)).toBe(0);
  });
}
