/**
 * Fair shares from the command line: `--tenant-weight NAME=W` (repeatable) and `AGENTRT_TENANT_WEIGHTS`
 * (`NAME=W,NAME=W`, read by every command that opens a runtime, so `serve`'s forked workers share it).
 * @module
 */
import { parseTenantWeight } from "../runs/fair-shares.js";
import type { SchedulerOptions } from "../runs/index.js";

/**
 * The scheduler options the weights give: fair shares when any weight is named (the flags' over the
 * environment's), none otherwise. A malformed weight is BAD_INPUT with a one-line reason (exit 2).
 */
export function tenantWeightOptions(flags: readonly string[] = [], env: NodeJS.ProcessEnv = process.env): SchedulerOptions {
  const fromEnv = (env.AGENTRT_TENANT_WEIGHTS ?? "").split(",").map((part) => part.trim()).filter((part) => part !== "");
  const named = [...fromEnv, ...flags];
  if (named.length === 0) return {};
  return { tenantWeights: Object.fromEntries(named.map(parseTenantWeight)) };
}
