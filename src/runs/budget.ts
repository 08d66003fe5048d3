/**
 * Budget checks over a run's usage counters. The store only counts; the
 * runtime asks here before each step or model call whether it may go on.
 * @module
 */
import type { RunBudget, RunUsage } from "./run-record.js";

/** A budget limit that has been used up. */
export interface ExhaustedLimit {
  limit: keyof RunBudget;
  max: number;
  used: number;
}

const LIMITS: ReadonlyArray<[keyof RunBudget, keyof RunUsage]> = [
  ["maxSteps", "steps"],
  ["maxModelCalls", "modelCalls"],
  ["maxTokens", "tokens"],
  ["maxCostUsd", "costUsd"],
];

/**
 * The first limit whose counter has reached its maximum (so no further
 * step, call, token or cost may be spent), or undefined while all have room.
 */
export function exhaustedBudget(usage: RunUsage, budget: RunBudget): ExhaustedLimit | undefined {
  for (const [limit, counter] of LIMITS) {
    const max = budget[limit];
    if (max !== undefined && usage[counter] >= max) return { limit, max, used: usage[counter] };
  }
  return undefined;
}
