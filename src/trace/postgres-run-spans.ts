/**
 * What a PostgreSQL recorder knows of its run's stored spans: the running ones (its own and those other processes
 * left open, like an approval wait) and how many state changes the run has. Read when the recorder is obtained
 * (`TraceStore.recorder`, one round trip), then kept up to date by the recorder's own marks, so recording and
 * `openSpans` stay synchronous.
 * @module
 */
import type { SpanRow } from "./rows.js";

/** The run state one attach or refresh statement returns. */
export interface StoredRunState {
  /** The run's root and running spans as stored, in start order. */
  rows: SpanRow[];
  stateChanges: number;
}

/** The in-memory view of one run's stored spans for its live recorder. */
export class RunSpans {
  readonly #rows = new Map<string, SpanRow>();
  #stateChanges = 0;
  // State changes this process marked since the last read (counted once each, however often re-marked).
  #localChanges = new Set<string>();

  constructor(state: StoredRunState) {
    this.reload(state, new Set());
  }

  /** Takes a row the recorder marked: a running row is kept (by identity), an ended one forgotten. */
  note(row: SpanRow): void {
    if (row.kind === "state_change") this.#localChanges.add(row.span_id);
    if (row.status === "running") this.#rows.set(row.span_id, row);
    else this.#rows.delete(row.span_id);
  }

  /** A running span by id. */
  load(spanId: string): SpanRow | undefined {
    return this.#rows.get(spanId);
  }

  /** Running spans, oldest first (ties in the order they were stored or started). */
  open(): SpanRow[] {
    return [...this.#rows.values()].filter((r) => r.status === "running").sort((a, b) => a.start_ms - b.start_ms);
  }

  /** How many state changes the run has: as last read, plus those marked here since. */
  stateChanges(): number {
    return this.#stateChanges + this.#localChanges.size;
  }

  /** Ids of the rows known now; pass them to {@link reload} to keep rows noted while the read was in flight. */
  snapshot(): Set<string> {
    return new Set(this.#rows.keys());
  }

  /**
   * Replaces the view with a fresh read (taken after a flush). Rows the recorder holds keep their identity; rows
   * known before the read but no longer running in it were ended elsewhere; rows noted during the read are kept.
   */
  reload(state: StoredRunState, before: ReadonlySet<string>): void {
    const fresh = new Map<string, SpanRow>();
    for (const row of state.rows) {
      if (row.status === "running") fresh.set(row.span_id, this.#rows.get(row.span_id) ?? row);
    }
    for (const [id, row] of this.#rows) if (!before.has(id) && !fresh.has(id)) fresh.set(id, row);
    this.#rows.clear();
    for (const [id, row] of fresh) this.#rows.set(id, row);
    this.#stateChanges = state.stateChanges;
    this.#localChanges = new Set();
  }
}
