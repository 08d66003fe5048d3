/**
 * The failure the simulated world injects for `AGENTRT_SIM_FAULTS`.
 * @module
 */
import { NotPerformedError, TransientToolError } from "../errors.js";

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

/**
 * The error of a simulated call whose signal aborted before the system performed it (during its latency): the
 * call surely did not happen, so a call a cancel stopped is recorded in the ledger as failed, not as unknown.
 */
export function abortError(signal: AbortSignal, tool: string): NotPerformedError {
  const reason: unknown = signal.reason;
  const code = (reason as { code?: unknown } | null)?.code === "TOOL_TIMEOUT" ? "TOOL_TIMEOUT" : "CANCELED";
  return new NotPerformedError(code, `simulated call to ${tool} aborted before it was performed`, { cause: reason, details: { tool, simulated: true } });
}
