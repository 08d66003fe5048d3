/**
 * The reading side of streaming across processes (see chunk-log.ts), in a serve process: one reader per streamed
 * run, woken by the chunk NOTIFY, reads the chunks after the lowest position of its listeners and hands each
 * listener those after its own position — so a listener that came back with Last-Event-ID reads its backlog from
 * the table, and none gets a chunk twice or out of order. Also sweeps the chunks of runs that rested long ago.
 * @module
 */
import type { StreamListener } from "../runtime/index.js";
import type { ChunkLog } from "./chunk-log.js";

/** Chunks read per statement. */
const READ_BATCH = 500;
/** Tries of the final catch-up read (backing off 0.1 s … 2 s) before a stream ends with what it has (a database that stays away). */
const CATCH_UP_ATTEMPTS = 8;
/** Default retention of the chunks of a run after its stream rested. */
export const DEFAULT_STREAM_RETENTION_MS = 3600_000;

interface Listening {
  listener: StreamListener;
  /** The seq of the last chunk handed to it. */
  pos: number;
}

interface Reader {
  listeners: Set<Listening>;
  reading: Promise<void> | undefined;
  again: boolean;
}

/** Options of {@link ChunkFeed}. */
export interface ChunkFeedOptions {
  /** How long chunks are kept after a run's stream rested (ms). @default 1 h */
  retentionMs?: number;
  /** Diagnostics. @default none */
  log?: (line: string) => void;
}

/** This process's listeners of streamed runs, fed from the shared chunk log. */
export class ChunkFeed {
  /** Chunks reach it wherever the run executes. */
  readonly crossProcess = true;
  readonly #readers = new Map<string, Reader>();
  #listening: Promise<() => Promise<void>> | undefined;
  readonly #sweeper: NodeJS.Timeout;
  /** Runs whose last read failed: the final catch-up tries again rather than end the stream short. */
  readonly #failed = new Set<string>();
  readonly #retentionMs: number;
  readonly #log: (line: string) => void;

  constructor(private readonly chunks: ChunkLog, options: ChunkFeedOptions = {}) {
    this.#retentionMs = options.retentionMs ?? DEFAULT_STREAM_RETENTION_MS;
    this.#log = options.log ?? (() => undefined);
    // Every serve process sweeps; a sweep is one indexed DELETE, so several doing it cost little.
    this.#sweeper = setInterval(() => void this.sweep(), Math.min(60_000, Math.max(1000, this.#retentionMs / 2)));
    this.#sweeper.unref();
  }

  /** Registers the watch (so the executing process publishes), then hands over the chunks after `after` and what follows. */
  async subscribe(runId: string, listener: StreamListener, modes: readonly string[], after?: number): Promise<() => void> {
    // Listening before the first read: a chunk committed in between is heard, not missed.
    await this.#listen();
    const last = await this.chunks.watch(runId, modes);
    const entry: Listening = { listener, pos: after ?? last };
    let reader = this.#readers.get(runId);
    if (reader === undefined) this.#readers.set(runId, (reader = { listeners: new Set(), reading: undefined, again: false }));
    reader.listeners.add(entry);
    // Its backlog (a reconnect), or a chunk whose notification came while the watch was being written.
    void this.#pump(runId);
    const owner = reader;
    return () => {
      owner.listeners.delete(entry);
      if (owner.listeners.size === 0 && this.#readers.get(runId) === owner) this.#readers.delete(runId);
    };
  }

  /** Reads the run's chunks up to its end; a read that fails is tried again (a stream must not end with a hole). */
  async caughtUp(runId: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      this.#failed.delete(runId);
      await this.#pump(runId);
      if (!this.#failed.has(runId) || attempt >= CATCH_UP_ATTEMPTS) return;
      await new Promise((resolve) => setTimeout(resolve, Math.min(2000, 100 * 2 ** attempt)));
    }
  }

  /** Deletes the chunks of runs whose stream rested more than the retention ago. */
  async sweep(): Promise<void> {
    try {
      await this.chunks.sweep(Date.now() - this.#retentionMs);
    } catch (error) {
      this.#log(`stream chunk sweep: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    const listening = this.#listening;
    this.#listening = undefined;
    this.#readers.clear();
    await (await listening?.catch(() => undefined))?.();
  }

  #listen(): Promise<unknown> {
    this.#listening ??= this.chunks.onChunks({
      onChunks: (runId) => void this.#pump(runId),
      onGap: () => {
        for (const runId of this.#readers.keys()) void this.#pump(runId);
      },
    });
    return this.#listening;
  }

  /** A read pass of the run, begun after this call; resolves when it is done (never rejects). */
  #pump(runId: string): Promise<void> {
    const reader = this.#readers.get(runId);
    if (reader === undefined) return Promise.resolve();
    if (reader.reading !== undefined) {
      reader.again = true;
      return reader.reading;
    }
    const loop = async () => {
      do {
        reader.again = false;
        await this.#readAll(runId, reader);
      } while (reader.again);
    };
    reader.reading = loop().finally(() => (reader.reading = undefined));
    return reader.reading;
  }

  async #readAll(runId: string, reader: Reader): Promise<void> {
    try {
      for (;;) {
        if (reader.listeners.size === 0) return;
        const from = Math.min(...[...reader.listeners].map((l) => l.pos));
        const rows = await this.chunks.read(runId, from, READ_BATCH);
        for (const row of rows) {
          for (const entry of [...reader.listeners]) {
            // A listener added during this read may be behind `from`: it gets nothing of this batch (that would skip
            // the chunks between its position and `from`) and is served by the next pass, which reads from it.
            if (entry.pos < from) {
              reader.again = true;
              continue;
            }
            if (row.seq <= entry.pos) continue;
            entry.pos = row.seq;
            try {
              entry.listener({ seq: row.seq, mode: row.mode, payload: row.payload, wire: true });
            } catch {
              // A broken listener (a closed socket) must not stop the others.
            }
          }
        }
        if (rows.length < READ_BATCH) return;
      }
    } catch (error) {
      // The next notification (or the stream's final catch-up) reads again from the same positions.
      this.#failed.add(runId);
      this.#log(`run ${runId}: reading stream chunks: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
