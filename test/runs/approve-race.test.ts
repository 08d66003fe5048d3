// Approvals and cancels racing on one run from two runtimes (two connections to one file, as two processes would be).
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { UserInputError } from "../../src/errors.js";
import { Runtime, type RunView } from "../../src/runtime/index.js";
import { openWorld } from "../../src/testing/index.js";
import { tempDbPath, thrown } from "./helpers.js";
import { runtimeInternals } from "../../src/runtime/internals.js";

const CONFIG = join(fileURLToPath(new URL("../..", import.meta.url)), "langgraph.json");
const MESSAGE = "Why did the payments deploy fail? Roll back if needed.";
const opened: Runtime[] = [];

beforeAll(async () => {
  process.env.AGENTRT_SIM_LATENCY_MS = "0";
});
afterEach(async () => {
  for (const rt of opened.splice(0)) await rt.close();
});

function open(db: string): Runtime {
  const rt = Runtime.open({ db, config: CONFIG });
  opened.push(rt);
  return rt;
}

/** Holds the next checkpoint read of `rt` (the validation of a decision) until `release` is called. */
async function holdNextRead(rt: Runtime): Promise<{ reached: Promise<void>; release: () => void }> {
  const graph = (await rt.registry.load("ops_rollback")) as unknown as { getState: (config: object) => Promise<unknown> };
  const original = graph.getState.bind(graph);
  let release: () => void = () => {};
  let reached: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const reachedGate = new Promise<void>((resolve) => (reached = resolve));
  graph.getState = async (config) => {
    graph.getState = original;
    const state = await original(config);
    reached();
    await gate;
    return state;
  };
  return { reached: reachedGate, release };
}

async function waiting(db: string) {
  const first = open(db);
  const second = open(db);
  const view = await first.submit({ graph: "ops_rollback", message: MESSAGE, user: "alice" });
  expect(view.status).toBe("WAITING_APPROVAL");
  const action = view.pending[0]!;
  const decision = { actionId: action.action_id, argsHash: action.args_hash, by: "alice" };
  const rollbacks = async () => (await openWorld({ db: runtimeInternals(first).db }).snapshot()).calls.rollback_deployment ?? 0;
  return { first, second, view, decision, rollbacks };
}

/** Starts `loser` (held after it validated its decision), lets `winner` finish, then releases the loser. */
async function race(held: Runtime, loser: () => Promise<RunView>, winner: () => Promise<unknown>): Promise<unknown> {
  const gate = await holdNextRead(held);
  const lost = loser().then(
    () => undefined,
    (error: unknown) => error,
  );
  await gate.reached;
  await winner();
  gate.release();
  return lost;
}

describe("decisions racing on one run", () => {
  it("a reject that lost to a queued approve is refused (RUN_NOT_WAITING, exit 2) and does not replace the approval", async () => {
    const { first, second, view, decision, rollbacks } = await waiting(tempDbPath());
    const events = (await runtimeInternals(first).runs.events(view.run_id)).length;
    const error = await race(second, () => second.reject(view.run_id, decision), () => first.approve(view.run_id, { ...decision, queue: true }));
    expect(error).toBeInstanceOf(UserInputError);
    expect(error).toMatchObject({ code: "RUN_NOT_WAITING" });
    const run = await runtimeInternals(first).runs.get(view.run_id);
    expect(run.status).toBe("QUEUED");
    expect(run.resume).toMatchObject([{ action_id: decision.actionId, decision: "approve" }]);
    expect(await runtimeInternals(first).runs.events(view.run_id)).toHaveLength(events + 1);
    await first.worker({ once: true, pollMs: 5 }).run();
    expect((await first.get(view.run_id)).status).toBe("SUCCEEDED");
    expect(await rollbacks()).toBe(1);
  });

  it("an approval arriving while the first one's resume is running is refused, not silently dropped", async () => {
    const db = tempDbPath();
    let onRunning: () => void = () => {};
    const first = Runtime.open({ db, config: CONFIG, onEvent: (e) => e.type === "status" && e.status === "RUNNING" && onRunning() });
    opened.push(first);
    const second = open(db);
    const view = await first.submit({ graph: "ops_rollback", message: MESSAGE, user: "alice", queue: true });
    await first.start(view.run_id);
    const action = (await first.get(view.run_id)).pending[0]!;
    const decision = { actionId: action.action_id, argsHash: action.args_hash, by: "alice" };
    const gate = await holdNextRead(second);
    const lost = second.approve(view.run_id, decision).then(() => undefined, (error: unknown) => error);
    await gate.reached;
    let statusWhenReleased = "";
    onRunning = () => {
      void runtimeInternals(first).runs.get(view.run_id).then((run) => {
        statusWhenReleased = run.status;
        gate.release();
      });
    };
    expect((await first.approve(view.run_id, decision)).status).toBe("SUCCEEDED");
    expect(statusWhenReleased).toBe("RUNNING");
    expect(await lost).toMatchObject({ code: "RUN_NOT_WAITING" });
    expect((await runtimeInternals(first).runs.events(view.run_id)).filter((e) => e.to === "RUNNING")).toHaveLength(2);
    expect((await openWorld({ db: runtimeInternals(first).db }).snapshot()).calls.rollback_deployment).toBe(1);
  });

  it("an approval that lost to a cancel is refused and nothing runs", async () => {
    const { first, second, view, decision, rollbacks } = await waiting(tempDbPath());
    const error = await race(second, () => second.approve(view.run_id, decision), async () => first.cancel(view.run_id));
    expect(error).toMatchObject({ code: "RUN_NOT_WAITING" });
    expect(await runtimeInternals(first).runs.get(view.run_id)).toMatchObject({ status: "CANCELED", resume: null });
    expect(await rollbacks()).toBe(0);
  });

  it("a cancel that finds the run finished inside its transaction is RUN_FINISHED (exit 2), not a bug", async () => {
    const { first, second, view, decision } = await waiting(tempDbPath());
    await first.approve(view.run_id, decision);
    // The runtime's own check passed earlier in another process; the store re-checks where it writes.
    const error = await thrown(() => runtimeInternals(second).runs.cancel(view.run_id));
    expect(error).toBeInstanceOf(UserInputError);
    expect(error).toMatchObject({ code: "RUN_FINISHED" });
    expect((await first.get(view.run_id)).status).toBe("SUCCEEDED");
  });
});
