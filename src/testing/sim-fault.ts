/**
 * The failure the simulated world injects for `AGENTRT_SIM_FAULTS`.
 * @module
 */
import { ToolError, TransientToolError } from "../errors.js";

/**
 * A transient failure injected into a simulated call (code `SIM_FAULT`,
 * `transient: true`), so agentrt's default retry policy (`isTransientError`)
 * retries it like a real 503; the tool and attempt are in `details`.
 */
export class SimulatedFaultError extends TransientToolError {
  constructor(options: { tool: string; attempt: number; faults: number }) {
    super("SIM_FAULT", `simulated transient fault in ${options.tool} (call ${options.attempt} of the first ${options.faults} that fail)`, {
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
