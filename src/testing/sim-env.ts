/**
 * Reads the simulated world's knobs from the environment:
 * `AGENTRT_SIM_LATENCY_MS` and `AGENTRT_SIM_FAULTS` (`tool:count,…`).
 * @module
 */
import { UserInputError } from "../errors.js";

/** Delay before every simulated call, in ms; 0 when unset. */
export function simLatencyMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.AGENTRT_SIM_LATENCY_MS?.trim();
  if (raw === undefined || raw === "") return 0;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) {
    throw new UserInputError("BAD_INPUT", `AGENTRT_SIM_LATENCY_MS must be a non-negative number of ms, got "${raw}"`);
  }
  return value;
}

/** How many of each tool's first calls fail, from `AGENTRT_SIM_FAULTS=tool:count,…`. */
export function simFaults(env: NodeJS.ProcessEnv = process.env): ReadonlyMap<string, number> {
  const faults = new Map<string, number>();
  const raw = env.AGENTRT_SIM_FAULTS?.trim();
  if (raw === undefined || raw === "") return faults;
  for (const entry of raw.split(",")) {
    const match = /^\s*([a-zA-Z0-9_-]+)\s*:\s*(\d+)\s*$/.exec(entry);
    if (match === null) {
      throw new UserInputError("BAD_INPUT", `AGENTRT_SIM_FAULTS entries look like tool:count, got "${entry.trim()}"`);
    }
    const [, tool = "", count = "0"] = match;
    faults.set(tool, (faults.get(tool) ?? 0) + Number(count));
  }
  return faults;
}
