/**
 * Provisional recording: what a recorder records inside a caller's SQLite transaction that may still roll back (a
 * run's outcome with its trace end, in one commit). The rows are written in that transaction; what goes outside the
 * database (OpenTelemetry, the store letting go of the recorder) waits for the commit; a rollback puts the
 * recorder's rows back as they were and marks again what was pending before, so the recorder can record it later.
 * @module
 */
import type { SpanRow } from "./rows.js";
import type { SpanSink } from "./writer.js";

/** What a provisional scope may change of its recorder. */
export interface ProvisionalState {
  runId: string;
  root: SpanRow;
  /** The recorder's open spans by id (put back in place on rollback). */
  open: Map<string, SpanRow>;
  writer: SpanSink;
}

/** The recorder's state as a scope found it, and the effects the scope held back; settled once. */
export class ProvisionalMarks {
  readonly #state: ProvisionalState;
  readonly #open: [string, SpanRow][];
  readonly #copies: [SpanRow, SpanRow][];
  readonly #pending: SpanRow[];
  #effects: (() => void)[] = [];
  #settled = false;

  constructor(state: ProvisionalState) {
    this.#state = state;
    this.#open = [...state.open];
    // Only open spans and the root change once recorded (an ended span stays as it ended).
    const rows = new Set(state.open.values()).add(state.root);
    this.#copies = [...rows].map((row) => [row, { ...row }]);
    this.#pending = state.writer.pendingOf(state.runId);
  }

  /** Holds `effect` until the transaction commits (dropped if it rolls back). */
  defer(effect: () => void): void {
    if (this.#settled) effect();
    else this.#effects.push(effect);
  }

  /** The transaction committed: the held effects run, in the order they were asked for. */
  commit(): void {
    if (this.#settled) return;
    this.#settled = true;
    const effects = this.#effects;
    this.#effects = [];
    for (const effect of effects) effect();
  }

  /**
   * The transaction rolled back (the rows written in it with it): the rows and open spans go back to how they
   * were, what the scope marked is dropped and what was pending before is marked again.
   */
  rollback(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#effects = [];
    const { open, writer, runId } = this.#state;
    for (const [row, copy] of this.#copies) Object.assign(row, copy);
    open.clear();
    for (const [id, row] of this.#open) open.set(id, row);
    for (const row of writer.pendingOf(runId)) writer.forget(row);
    for (const row of this.#pending) writer.mark(row, false);
  }
}
