/**
 * The budget flags of `agentrt run`: parsed and checked before anything is
 * opened, so a bad value exits 2 without creating a run.
 * @module
 */
import { UserInputError } from "../errors.js";
import type { RunBudget } from "../runs/index.js";
import type { CommandContext, FlagSpec } from "./command.js";

const FLAGS = {
  "max-steps": "maxSteps",
  "max-model-calls": "maxModelCalls",
  "max-tokens": "maxTokens",
  "max-cost-usd": "maxCostUsd",
  "deadline-ms": "deadlineMs",
} as const satisfies Record<string, keyof RunBudget>;

/** The flag definitions, to spread into a command's `flags`. */
export const BUDGET_FLAGS: FlagSpec = {
  "max-steps": { type: "string", value: "N", description: "Stop the run (FAILED BUDGET_STEPS) before it takes more than N steps; a model turn and each tool call are one step each." },
  "max-model-calls": { type: "string", value: "N", description: "Stop the run (FAILED BUDGET_MODEL_CALLS) before a model call past N." },
  "max-tokens": { type: "string", value: "N", description: "Stop the run (FAILED BUDGET_TOKENS) before a model call would take it past N tokens in all." },
  "max-cost-usd": { type: "string", value: "X", description: "Stop the run (FAILED BUDGET_COST) before a model call would take its cost past X US dollars." },
  "deadline-ms": { type: "string", value: "N", description: "Stop the run (FAILED DEADLINE_EXCEEDED) once N ms have passed since it first started, waits included." },
} satisfies Record<keyof typeof FLAGS, FlagSpec[string]>;

/** Usage text of the budget flags. */
export const BUDGET_USAGE = "[--max-steps N] [--max-model-calls N] [--max-tokens N] [--max-cost-usd X] [--deadline-ms N]";

/** The budget the flags give (undefined when none is set); BAD_INPUT for a negative or non-numeric value. */
export function parseBudgetFlags(flags: CommandContext["flags"]): RunBudget | undefined {
  let budget: RunBudget | undefined;
  for (const [flag, limit] of Object.entries(FLAGS) as [keyof typeof FLAGS, keyof RunBudget][]) {
    const raw = flags[flag];
    if (raw === undefined) continue;
    const text = String(raw).trim();
    const decimal = limit === "maxCostUsd";
    const ok = decimal ? /^\d+(\.\d+)?$/.test(text) : /^\d+$/.test(text);
    const value = Number(text);
    if (!ok || !Number.isFinite(value) || (!decimal && !Number.isSafeInteger(value))) {
      throw new UserInputError("BAD_INPUT", `--${flag} must be ${decimal ? "a number ≥ 0 (USD)" : "an integer ≥ 0"} (got "${text}")`);
    }
    budget = { ...budget, [limit]: value };
  }
  return budget;
}
