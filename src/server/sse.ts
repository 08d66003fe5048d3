/**
 * Streams one run over Server-Sent Events in the Agent Server's format:
 * `metadata` first, then one event per chunk of each requested mode (values,
 * updates, messages-tuple, custom, debug, tasks, checkpoints, events), then
 * `error` if the run failed. A client that disconnects only stops its own
 * stream and the run goes on, unless it asked for `on_disconnect: "cancel"`.
 * Each chunk's event carries its number as the SSE `id`; a client that comes
 * back to `GET …/runs/{run_id}/stream` with `Last-Event-ID` gets the chunks
 * after it first (on SQLite from this process's memory of the runs it
 * streamed; on PostgreSQL from the shared chunk log, on any serve process).
 * @module
 */
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { RunRecord } from "../runs/index.js";
import type { StreamChunk } from "../runtime/index.js";
import type { RouteDeps, ServerEnv } from "./context.js";
import { errorResponse } from "./http-error.js";
import { chunkToWire } from "../streams/chunk-wire.js";
import { damageOf } from "./thread-damage.js";
import { toWire } from "../streams/value-wire.js";

interface SseEvent {
  event: string;
  data: unknown;
  /** The chunk's number in the run's stream: what a reconnect sends back as Last-Event-ID. */
  id?: number;
}

/** The SSE event a chunk becomes for a client that asked for `modes`; undefined to skip it. */
export function eventFor(chunk: StreamChunk, modes: readonly string[]): SseEvent | undefined {
  const event = eventOf(chunk, modes);
  return event === undefined || chunk.seq === undefined ? event : { ...event, id: chunk.seq };
}

function eventOf(chunk: StreamChunk, modes: readonly string[]): SseEvent | undefined {
  const event = eventNameOf(chunk.mode, modes);
  if (event === undefined) return undefined;
  // A chunk read from the shared chunk log is in wire form already (see chunk-wire.ts).
  return { event, data: chunk.wire === true ? chunk.payload : chunkToWire(chunk.mode, chunk.payload) };
}

/** The SSE event name of a chunk of LangGraph mode `mode` for a client that asked for `modes`; undefined to skip it. */
function eventNameOf(mode: string, modes: readonly string[]): string | undefined {
  switch (mode) {
    case "values":
    case "updates":
    case "custom":
    case "debug":
    case "checkpoints":
    case "tasks":
    case "events":
      return modes.includes(mode) ? mode : undefined;
    case "messages":
      return modes.includes("messages-tuple") || modes.includes("messages") ? "messages" : undefined;
    default:
      return undefined;
  }
}

/**
 * The `Last-Event-ID` a reconnecting client sends (an event id of ours: a chunk number), or undefined;
 * `-1` (what `useStream` sends to mean "from the beginning") replays every chunk kept.
 */
export function lastEventIdOf(c: Context<ServerEnv>): number | undefined {
  const raw = c.req.header("last-event-id")?.trim();
  const id = raw === undefined || raw === "" ? Number.NaN : Number(raw);
  return Number.isSafeInteger(id) && id >= -1 ? Math.max(id, 0) : undefined;
}

/**
 * Answers with the run's SSE stream; `kick` starts the run once the stream listens; `onDisconnect` is
 * called when the client goes away before the run came to rest.
 */
export function streamRun(
  c: Context<ServerEnv>, deps: RouteDeps, run: RecordLike, modes: readonly string[], kick?: () => void, onDisconnect?: () => void,
  lastEventId?: number,
): Response {
  c.header("Content-Location", `/threads/${run.threadId}/runs/${run.runId}`);
  return streamSSE(c, async (stream) => {
    const queue: SseEvent[] = [];
    let wake: (() => void) | undefined;
    let closed = false;
    let finished = false;
    const unsubscribe = await deps.streams.subscribe(run.runId, (chunk) => {
      const event = eventFor(chunk, modes);
      if (event === undefined) return;
      queue.push(event);
      wake?.();
    }, modes, lastEventId);
    stream.onAbort(() => {
      closed = true;
      if (!finished) onDisconnect?.();
      wake?.();
    });
    kick?.();
    const abort = new AbortController();
    const settle = <T>(value: T): T => {
      finished = true;
      wake?.();
      return value;
    };
    // A wait that ends in an error (the disk stopped the run) ends the stream with that error, not never.
    // At rest, the chunks committed before the rest are read first (from another process, they come by the log).
    const resting = deps.service.waiters.waitResting(run.runId, abort.signal).then(
      async (r) => {
        await deps.streams.caughtUp(run.runId);
        return settle({ run: r });
      },
      (error: unknown) => settle({ error }),
    );
    try {
      await stream.writeSSE({ event: "metadata", data: JSON.stringify({ run_id: run.runId, thread_id: run.threadId, attempt: 1 }) });
      let sent = 0;
      while (!closed) {
        const next = queue.shift();
        if (next !== undefined) {
          await writeEvent(stream, next);
          sent++;
          continue;
        }
        if (finished) break;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
      const rested = closed ? undefined : await resting;
      if (rested !== undefined && "error" in rested) {
        const { body } = errorResponse(rested.error);
        await writeEvent(stream, { event: "error", data: { error: body.code, message: body.message } });
      } else if (rested !== undefined) await finish(stream, deps, rested.run, modes, sent === 0);
    } finally {
      unsubscribe();
      abort.abort();
    }
  });
}

type RecordLike = Pick<RunRecord, "runId" | "threadId">;
type SseWriter = Parameters<Parameters<typeof streamSSE>[1]>[0];

async function writeEvent(stream: SseWriter, event: SseEvent): Promise<void> {
  let data: string;
  try {
    data = JSON.stringify(event.data);
  } catch {
    return; // An unserialisable chunk is skipped rather than ending the stream.
  }
  await stream.writeSSE({ event: event.event, data, ...(event.id === undefined ? {} : { id: String(event.id) }) });
}

/** After the run rests: its values when nothing was streamed live (a late join), and the error if it failed. */
async function finish(stream: SseWriter, deps: RouteDeps, run: RunRecord, modes: readonly string[], nothingSent: boolean): Promise<void> {
  const failed = run.status === "FAILED" || run.status === "EXPIRED" || run.status === "CANCELED";
  if (nothingSent && modes.includes("values")) {
    try {
      const snapshot = await deps.service.states.state(run.graphId, run.threadId);
      if (snapshot !== undefined) await writeEvent(stream, { event: "values", data: toWire(snapshot.values) });
    } catch (error) {
      // A state its graph cannot read back: a failed run's own error (below) says more.
      if (!failed) await writeEvent(stream, { event: "error", data: damageOf(run.threadId, error) });
    }
  }
  if (failed) {
    await writeEvent(stream, { event: "error", data: { error: run.errorCode ?? run.status, message: run.errorMessage ?? run.status.toLowerCase() } });
  }
}
