/**
 * The failure the simulated world injects for `AGENTRT_SIM_FAULTS`.
 * @module
 */
import { ToolError } from "../errors.js";

/**
 * A transient failure injected into a simulated call. `transient: true` makes
 * agentrt's default retry policy retry it; the tool and attempt are in `details`.
 */
export class SimulatedFaultError extends ToolError {
  readonly transient = true;

  constructor(options: { tool: string; attempt: number; faults: number }) {
    super("TOOL_FAILED", `simulated transient fault in ${options.tool} (call ${options.attempt} of the first ${options.faults} that fail)`, {
      details: { ...options, simulated: true },
    });
  }
}

/** Turns an aborted signal into the error a cancelled simulated call throws. */
export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new ToolError("CANCELED", "simulated call aborted", { cause: reason });
}
