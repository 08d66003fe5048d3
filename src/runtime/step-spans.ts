/**
 * Groups a run's spans by step: one `step N` span per model turn, holding
 * that turn's model call and the tool calls it asked for, so the trace reads
 * invoke_agent → step → model_turn / execute_tool.
 * @module
 */
import type { SpanHandle, TraceRecorder } from "../trace/index.js";

/** The open step of one execution of a run; hooks arrive after the fact, so steps end lazily. */
export class StepSpans {
  private current: { turn: number; handle: SpanHandle; endTime: number } | undefined;

  constructor(private readonly recorder: TraceRecorder) {}

  /**
   * The span of `turn`'s step, opening it (and ending the previous one) when the run moves on.
   * A step first seen through a tool call was begun by an earlier execution: it is marked resumed.
   */
  enter(turn: number, startTime: number, endTime: number, from: "model" | "tool"): SpanHandle {
    if (this.current?.turn !== turn) {
      this.close();
      const name = from === "tool" ? `step ${turn} (resumed)` : `step ${turn}`;
      this.current = { turn, handle: this.recorder.startStep(name, { startTime }), endTime };
    }
    this.current.endTime = Math.max(this.current.endTime, endTime);
    return this.current.handle;
  }

  /** Ends the open step at the end of its last span. */
  close(): void {
    if (this.current === undefined) return;
    this.current.handle.end({ endTime: this.current.endTime });
    this.current = undefined;
  }
}
