/**
 * Where a streamed run stopped, read from its own stream chunks when that is
 * enough: a run that streamed no interrupt and reached its end needs no
 * `getState` (a checkpoint read and a task plan) to know its final values.
 * @module
 */

/** The part of a state snapshot an outcome is decided from. */
export interface SettledState {
  values: Record<string, unknown>;
  tasks: unknown[];
  next: string[];
}

/** What a compiled graph may declare that stops it without an `__interrupt__` chunk. */
interface Breakpoints {
  interruptBefore?: unknown;
  interruptAfter?: unknown;
}

const hasAny = (value: unknown) => value === "*" || (Array.isArray(value) && value.length > 0);

/** Watches `[mode, payload]` chunks of `graph.stream(…, { streamMode: [...] })` for the final values and interrupts. */
export class StreamOutcome {
  private values: Record<string, unknown> | undefined;
  private interrupted = false;

  /** Stream modes the watcher needs on top of the caller's. */
  static readonly MODES = ["values", "updates"] as const;

  /**
   * What a run nobody listens to streams: "values" alone. LangGraph emits an interrupt as a values chunk as well as
   * an updates one (its own `invoke` reads interrupts from values mode), so the outcome needs no second mode, whose
   * chunks cost a run several per cent of its CPU (in-process A/B of the full city_weather path: 8–15 %).
   */
  static readonly SETTLING_MODES = ["values"] as const;

  constructor(private readonly graph: Breakpoints) {}

  /** Reads one raw chunk and returns its mode (subgraph chunks, `[namespace, mode, payload]`, are not the root's state). */
  observe(chunk: unknown): string | undefined {
    if (!Array.isArray(chunk) || (chunk.length !== 2 && chunk.length !== 3)) return undefined;
    const mode: unknown = chunk[chunk.length - 2];
    const payload: unknown = chunk[chunk.length - 1];
    if (chunk.length === 2 && payload !== null && typeof payload === "object") {
      // LangGraph also streams an interrupt as a values chunk {__interrupt__: […]}: never a final state.
      if ("__interrupt__" in payload && (mode === "values" || mode === "updates")) this.interrupted = true;
      else if (mode === "values") this.values = payload as Record<string, unknown>;
    }
    return typeof mode === "string" ? mode : undefined;
  }

  /**
   * The final state when the stream shows the graph ran to its end; undefined when only the
   * checkpoint can tell (an interrupt, a static breakpoint, no values chunk seen).
   */
  settled(): SettledState | undefined {
    if (this.interrupted || this.values === undefined) return undefined;
    // A fallback: LangGraph 1.7 streams an empty __interrupt__ for a static breakpoint too, but the graph says so for sure.
    if (hasAny(this.graph.interruptBefore) || hasAny(this.graph.interruptAfter)) return undefined;
    return { values: this.values, tasks: [], next: [] };
  }
}
