/**
 * Budgets: the limits a run must stay within, checked over its stored usage
 * counters before each model call (and the deadline also before each tool
 * attempt). The store only counts; the runtime's guard asks here whether the
 * next call may be made.
 * @module
 */
import { AgentrtError, UserInputError, type AgentrtErrorCode } from "../errors.js";
import type { RunBudget, RunUsage } from "./run-record.js";

/** The stable error code a run FAILS with when a limit stops it, per limit. */
export const BUDGET_ERROR_CODES = {
  maxSteps: "BUDGET_STEPS",
  maxModelCalls: "BUDGET_MODEL_CALLS",
  maxTokens: "BUDGET_TOKENS",
  maxCostUsd: "BUDGET_COST",
  deadlineMs: "DEADLINE_EXCEEDED",
} as const satisfies Record<keyof RunBudget, AgentrtErrorCode>;

/** A limit that stops the run: what it allows, what was used, and what the next call would add. */
export interface ExhaustedLimit {
  limit: keyof RunBudget;
  code: (typeof BUDGET_ERROR_CODES)[keyof RunBudget];
  max: number;
  used: number;
  /** The estimated amount the call about to be made would add (0 when not estimated). */
  next: number;
}

const COUNTERS: ReadonlyArray<[Exclude<keyof RunBudget, "deadlineMs">, keyof RunUsage]> = [
  ["maxSteps", "steps"],
  ["maxModelCalls", "modelCalls"],
  ["maxTokens", "tokens"],
  ["maxCostUsd", "costUsd"],
];

/**
 * The first counter limit the run has used up, or would surely pass with the
 * call about to be made (`next`: what that call adds at least, e.g. one step,
 * one model call, its estimated input tokens and their price); undefined while
 * every limit has room.
 */
export function exhaustedBudget(usage: RunUsage, budget: RunBudget, next: Partial<RunUsage> = {}): ExhaustedLimit | undefined {
  for (const [limit, counter] of COUNTERS) {
    const max = budget[limit];
    if (max === undefined) continue;
    const used = usage[counter];
    const adds = next[counter] ?? 0;
    if (used >= max || used + adds > max) return { limit, code: BUDGET_ERROR_CODES[limit], max, used, next: adds };
  }
  return undefined;
}

/** The deadline limit when `now` is past `startedAt + budget.deadlineMs`, else undefined. */
export function passedDeadline(budget: RunBudget, startedAt: number, now: number): ExhaustedLimit | undefined {
  const max = budget.deadlineMs;
  if (max === undefined || now - startedAt < max) return undefined;
  return { limit: "deadlineMs", code: BUDGET_ERROR_CODES.deadlineMs, max, used: now - startedAt, next: 0 };
}

/** A budget limit stopped the run before a model call (or, for the deadline, before a tool attempt). */
export class BudgetExceededError extends AgentrtError {
  /** The limit that stopped the run. */
  readonly limit: keyof RunBudget;

  constructor(exhausted: ExhaustedLimit) {
    super(exhausted.code, describeExhausted(exhausted), { details: { ...exhausted } });
    this.limit = exhausted.limit;
  }
}

const UNITS: Record<keyof RunBudget, string> = {
  maxSteps: "steps", maxModelCalls: "model calls", maxTokens: "tokens", maxCostUsd: "USD", deadlineMs: "ms",
};

/** One line saying which limit stopped the run and why no further call was made. */
export function describeExhausted(e: ExhaustedLimit): string {
  const unit = UNITS[e.limit];
  if (e.limit === "deadlineMs") return `wall-clock deadline of ${e.max} ms passed (${e.used} ms since the run started)`;
  const fmt = (n: number) => (e.limit === "maxCostUsd" ? n.toFixed(6) : String(n));
  const tail = e.next > 0 && e.used < e.max ? `; the next model call needs at least ${fmt(e.next)} more` : "";
  return `budget of ${fmt(e.max)} ${unit} exhausted: ${fmt(e.used)} used${tail}; no further model call was made`;
}

/**
 * Checks a budget given by a caller: every limit a finite number ≥ 0, counts
 * and milliseconds integers. BAD_INPUT (exit 2) otherwise; returns the budget
 * without absent limits.
 */
export function validateBudget(budget: unknown): RunBudget {
  if (budget === undefined || budget === null) return {};
  if (typeof budget !== "object" || Array.isArray(budget)) throw new UserInputError("BAD_INPUT", "a run budget must be an object of limits");
  const valid: RunBudget = {};
  for (const [name, value] of Object.entries(budget as Record<string, unknown>)) {
    if (!(name in BUDGET_ERROR_CODES)) {
      throw new UserInputError("BAD_INPUT", `unknown budget limit ${name} (known: ${Object.keys(BUDGET_ERROR_CODES).join(", ")})`);
    }
    if (value === undefined) continue;
    const limit = name as keyof RunBudget;
    const integer = limit !== "maxCostUsd";
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || (integer && !Number.isSafeInteger(value))) {
      const kind = integer ? "an integer ≥ 0" : "a number ≥ 0";
      throw new UserInputError("BAD_INPUT", `budget ${limit} must be ${kind} (got ${typeof value === "number" ? String(value) : JSON.stringify(value) ?? typeof value})`, {
        details: { [limit]: value },
      });
    }
    valid[limit] = value;
  }
  return valid;
}
