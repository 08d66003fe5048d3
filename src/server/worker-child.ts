/**
 * Entry of a worker process forked by `agentrt serve --workers N`: the
 * ordinary worker loop (`Runtime.worker`: claims with leases and fencing) on
 * the server's SQLite file, plus the IPC the server uses to make it claim at
 * once and to hear at once that a run came to rest. It never outlives the
 * server: SIGTERM, SIGINT or the IPC channel closing (the server exited, even
 * by SIGKILL) stop it, handing back the runs it holds (RETRYING, claimable at
 * once) instead of leaving them to lease expiry.
 * @module
 */
import type { Worker } from "../runs/index.js";
import { Runtime } from "../runtime/index.js";
import { toWire } from "../streams/value-wire.js";
import { parseToWorker, type FromWorker, type WorkerChildSpec } from "./worker-ipc.js";

/** Longest a stopping worker may take to hand its runs back before it exits anyway. */
const STOP_GRACE_MS = 10_000;

function send(message: FromWorker): void {
  if (process.connected) process.send?.(message);
}

if (process.send === undefined) {
  process.stderr.write("agentrt serve worker: must be forked by agentrt serve (no IPC channel)\n");
  process.exit(2);
}

let stopping = false;
let worker: Worker | undefined;

function shutdown(): void {
  if (stopping) return;
  stopping = true;
  setTimeout(() => process.exit(1), STOP_GRACE_MS).unref();
  void worker?.stop({ abort: true });
}
// The static imports above were loaded (event-loop turns) before this runs: a server that died meanwhile
// closed the channel already and its "disconnect" is gone, so check the channel as well as listening.
process.on("disconnect", shutdown);
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
if (!process.connected) shutdown();

const spec = JSON.parse(process.argv[2] ?? "{}") as WorkerChildSpec;
const runtime = Runtime.open({
  db: spec.db === "" ? process.env.AGENTRT_DATABASE_URL : spec.db,
  config: spec.config,
  workerId: spec.workerId,
  // Only rests and storage stalls: a waiter in the server needs nothing else, and every message costs both loops. A run that
  // ran to its end sends its final values along: the server's waiter answers with them instead of a getState.
  onEvent: (event) => {
    if (event.type === "storage_failed") {
      send({ type: "stalled", runId: event.runId, fencingToken: event.fencingToken, code: event.code, message: event.message });
      return;
    }
    if (event.type !== "status" || event.status === "RUNNING") return;
    const values = event.values === undefined ? undefined : (toWire(event.values) as Record<string, unknown>);
    send({ type: "rest", runId: event.runId, status: event.status, ...(values === undefined ? {} : { values }) });
  },
});
// Loaded before the first claim, so no run waits for a graph import here (a broken entry fails its runs later, as anywhere).
await Promise.allSettled(runtime.registry.ids().map((id) => runtime.registry.load(id)));
if (!stopping) {
  const loop = runtime.worker({ workerId: spec.workerId, concurrency: spec.concurrency, pollMs: spec.pollMs });
  worker = loop;
  process.on("message", (raw) => {
    const message = parseToWorker(raw);
    if (message?.type === "poke") loop.poke();
    else if (message?.type === "canceled") runtime.recheckLease(message.runId);
  });
  const done = loop.run();
  send({ type: "ready", workerId: spec.workerId });
  await done;
}
await runtime.close();
// The IPC channel would keep this process alive.
process.exit(0);
