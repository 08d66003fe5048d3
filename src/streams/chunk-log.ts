/**
 * Streaming across processes: the durable log of the stream chunks of runs someone streams, shared by every
 * process on one PostgreSQL database. Why a table and NOTIFY rather than Redis pub/sub: one source of truth (the
 * database every process already has), chunks ordered by (run_id, seq) and resumable from any seq by any process,
 * even after a restart of any of them, and no extra service to deploy or lose messages in.
 *
 * - A run is *watched* once someone streams it (the streaming endpoint, a join, a reconnect): a row in
 *   `run_streams`, announced by NOTIFY on the "watches" channel. A run created by the streaming endpoint also says
 *   so in its stored config (`RunGraphConfig.stream`), so whichever worker claims it publishes from its first chunk.
 * - The process executing a watched run appends its chunks in batches (one statement per flush: at a step boundary,
 *   every ~20 ms, or every N chunks) and NOTIFYs the "chunks" channel with `run_id:last_seq` in the same statement.
 *   A chunk's seq is its SSE event id. The last flush of an execution commits before the run's status changes, so a
 *   reader that sees the run at rest reads every chunk with one more read.
 * - Each serve process has one reader per streamed run, woken by the NOTIFY, that reads `seq > last` and fans the
 *   chunks out to its SSE listeners; a listener that reconnects (Last-Event-ID, on any process) reads from the table.
 * - Runs nobody streams write nothing here. Chunks of runs that rested more than the retention ago (1 h by default)
 *   are deleted by a sweep of the serve processes.
 * On SQLite there is no chunk log: the in-process StreamBus carries the chunks of runs executed in the server.
 * @module
 */

/** A chunk as stored: its number in the run's stream, its LangGraph mode, and its payload in wire (JSON) form. */
export interface LoggedChunk {
  seq: number;
  mode: string;
  payload: unknown;
}

/** A watch on a run: the stream modes its watchers asked for. */
export interface RunWatch {
  runId: string;
  modes: readonly string[];
}

/** Receives word of a watch registered by any process (or this one); must not throw. */
export interface WatchListener {
  onWatch(watch: RunWatch): void;
  /** Watches may have been missed (the listening connection came back): look at {@link ChunkLog.watches}. */
  onGap?(): void;
}

/** Receives word that chunks of a run were committed; must not throw. */
export interface ChunkListener {
  onChunks(runId: string, lastSeq: number): void;
  /** Notifications may have been missed: read every run again. */
  onGap?(): void;
}

/** The shared log of streamed runs' chunks. */
export interface ChunkLog {
  /**
   * Registers (or widens) a watch on the run and announces it; returns the seq of its last chunk so far, from which
   * a listener that wants only what comes next reads.
   */
  watch(runId: string, modes: readonly string[]): Promise<number>;
  /** Watches of runs whose stream has not rested long ago: what a process starting to execute runs must know. */
  watches(): Promise<RunWatch[]>;
  /**
   * Appends chunks (numbered after the run's last one) in one statement that also notifies readers; `rested`: the
   * execution ends with them (starts the retention clock). Returns the last seq.
   */
  append(runId: string, chunks: readonly { mode: string; payload: unknown }[], rested: boolean): Promise<number>;
  /** Up to `limit` chunks of the run numbered after `afterSeq`, oldest first. */
  read(runId: string, afterSeq: number, limit: number): Promise<LoggedChunk[]>;
  /** Deletes the chunks and watches of runs whose stream rested before `cutoff` (ms since epoch); returns runs dropped. */
  sweep(cutoff: number): Promise<number>;
  /** Hears watches until the returned function is called (this process's own at once, others' by NOTIFY). */
  onWatch(listener: WatchListener): Promise<() => Promise<void>>;
  /** Hears committed chunks until the returned function is called. */
  onChunks(listener: ChunkListener): Promise<() => Promise<void>>;
}
