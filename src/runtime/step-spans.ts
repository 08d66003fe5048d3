/**
 * Groups a run's spans by step: one `step N` span per model turn, holding
 * that turn's model call and the tool calls it asked for, so the trace reads
 * invoke_agent → step → model_turn / execute_tool.
 * @module
 */
import type { SpanHandle, TraceRecorder } from "../trace/index.js";

/** The open step of one execution of a run; hooks arrive after the fact, so steps end lazily. */
export class StepSpans {
  private current: { turn: number; agent: string | undefined; handle: SpanHandle; endTime: number } | undefined;

  constructor(private readonly recorder: TraceRecorder) {}

  /**
   * The span of `turn`'s step (of sub-agent `agent`, which counts its own turns), opening it (and ending the
   * previous one) when the run moves on. A step first seen through a tool call was begun by an earlier
   * execution: it is marked resumed.
   */
  enter(turn: number, startTime: number, endTime: number, from: "model" | "tool", agent?: string): SpanHandle {
    if (this.current?.turn !== turn || this.current.agent !== agent) {
      this.close();
      const step = agent === undefined ? `step ${turn}` : `${agent} step ${turn}`;
      const name = from === "tool" ? `${step} (resumed)` : step;
      this.current = { turn, agent, handle: this.recorder.startStep(name, { startTime, agent }), endTime };
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
