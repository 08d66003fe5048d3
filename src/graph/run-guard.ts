/**
 * The run guard: checks the runtime passes in the run scope
 * (`config.context.guard`) and the agent's nodes call *before* acting, unlike
 * hooks, which observe after the fact. The model turn asks it before every
 * model call; the tool executor before every tool attempt and around retries.
 * @module
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { ToolGuard } from "../tools/tool-guard.js";
import type { AgentStopError } from "./state.js";

/** The model call about to be made. */
export interface ModelCallRequest {
  /** The model's name, as priced in the trace. */
  model: string;
  turn: number;
  /** The context exactly as it will be sent. */
  messages: readonly BaseMessage[];
}

/** Checks before the run acts. Implementations must not throw for a stop; they return it. */
export interface RunGuard extends ToolGuard {
  /**
   * Before each model call: a stop (stable `code`, one-line `message`) ends the
   * agent with that error and the call is not made; undefined lets it go on.
   */
  beforeModelCall?(request: ModelCallRequest): AgentStopError | undefined | Promise<AgentStopError | undefined>;
  /**
   * The run's wall-clock deadline, if it has one: a model call still waiting at `at` (epoch ms) is cut there
   * and the agent ends with `stop()`.
   */
  deadline?(): { at: number; stop(): AgentStopError } | undefined;
}
