/**
 * The recent chunks of each streamed run, numbered, so an SSE client that lost its connection can come back with
 * `Last-Event-ID` and get what it missed before the live chunks (LangGraph's resumable streams, `joinStream`).
 * In memory and per process: a run streamed by this process can be re-joined here. Bounded per run and dropped
 * a while after the run's last chunk.
 * @module
 */

/** A stream chunk with its number in the run's stream (1, 2, …): the SSE event id. */
export interface NumberedChunk {
  seq: number;
  mode: string;
  payload: unknown;
}

interface Retained {
  chunks: NumberedChunk[];
  next: number;
  timer: NodeJS.Timeout | undefined;
}

/** Options of {@link StreamReplay}. */
export interface StreamReplayOptions {
  /** Chunks kept per run; older ones are dropped first. @default 10_000 */
  maxChunks?: number;
  /** How long a run's chunks are kept after its last one (ms). @default 600_000 */
  keepMs?: number;
}

/** Numbered chunks of the runs someone streamed, for reconnects. */
export class StreamReplay {
  private readonly runs = new Map<string, Retained>();
  private readonly maxChunks: number;
  private readonly keepMs: number;

  constructor(options: StreamReplayOptions = {}) {
    this.maxChunks = options.maxChunks ?? 10_000;
    this.keepMs = options.keepMs ?? 600_000;
  }

  /** Starts keeping the run's chunks (a stream listens to it); idempotent. */
  retain(runId: string): void {
    if (!this.runs.has(runId)) this.runs.set(runId, this.expiring(runId, { chunks: [], next: 1, timer: undefined }));
  }

  /** Numbers and keeps a chunk of a retained run; undefined (not kept, no number) for any other run. */
  append(runId: string, chunk: { mode: string; payload: unknown }): NumberedChunk | undefined {
    const retained = this.runs.get(runId);
    if (retained === undefined) return undefined;
    const numbered = { seq: retained.next++, ...chunk };
    retained.chunks.push(numbered);
    if (retained.chunks.length > this.maxChunks) retained.chunks.shift();
    this.expiring(runId, retained);
    return numbered;
  }

  /** The kept chunks numbered after `seq`, oldest first. */
  after(runId: string, seq: number): NumberedChunk[] {
    return (this.runs.get(runId)?.chunks ?? []).filter((c) => c.seq > seq);
  }

  /** Drops everything (the bus is closing). */
  clear(): void {
    for (const retained of this.runs.values()) clearTimeout(retained.timer);
    this.runs.clear();
  }

  private expiring(runId: string, retained: Retained): Retained {
    clearTimeout(retained.timer);
    retained.timer = setTimeout(() => this.runs.delete(runId), this.keepMs);
    retained.timer.unref();
    return retained;
  }
}
