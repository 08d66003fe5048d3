/** Span handles: what `startSpan` returns. */
import type { SpanRow } from "./rows.js";
import type { SpanAttributes, SpanStatus } from "./types.js";

/** How a span ends. */
export interface EndSpanOptions {
  /** @default "error" when `error` is given, else "ok" */
  status?: SpanStatus;
  /** Epoch ms. @default now */
  endTime?: number;
  attributes?: SpanAttributes;
  /** The failure; stored as one line with its agentrt code. */
  error?: unknown;
}

/** An open span. `end` is idempotent: only the first call counts. */
export interface SpanHandle {
  readonly id: string;
  readonly stepId: string | null;
  readonly ended: boolean;
  /** Adds or overwrites attributes while the span is open. */
  set(attributes: SpanAttributes): void;
  end(options?: EndSpanOptions): void;
}

/** The recorder operations a handle forwards to (shared by all handles of a recorder). */
export interface SpanOps {
  apply(row: SpanRow, attributes: SpanAttributes): void;
  end(row: SpanRow, options: EndSpanOptions): void;
}

/** The handle of one open span. */
export class OpenSpan implements SpanHandle {
  readonly #row: SpanRow;
  readonly #ops: SpanOps;

  constructor(row: SpanRow, ops: SpanOps) {
    this.#row = row;
    this.#ops = ops;
  }

  get id(): string {
    return this.#row.span_id;
  }

  get stepId(): string | null {
    return this.#row.step_id;
  }

  get ended(): boolean {
    return this.#row.status !== "running";
  }

  set(attributes: SpanAttributes): void {
    this.#ops.apply(this.#row, attributes);
  }

  end(options: EndSpanOptions = {}): void {
    this.#ops.end(this.#row, options);
  }
}
