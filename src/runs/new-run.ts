/**
 * A new run's stored columns from a {@link CreateRunInput}, validated the same way on every backend: BAD_INPUT for
 * non-integer numbers, too few attempts, a non-positive wait TTL, a bad budget or graph config.
 * @module
 */
import { UserInputError } from "../errors.js";
import { validateBudget } from "./budget.js";
import { validateGraphConfig } from "./graph-config.js";
import { defaultThreadId, newRunId } from "./ids.js";
import { toJson } from "./run-record.js";
import type { CreateRunInput } from "./run-store.js";
import { encodeBudget, encodeConfig } from "./stored-documents.js";

/** A new QUEUED run's columns, in the order both backends insert them (created_at = updated_at = `now`). */
export type NewRunValues = [
  runId: string, threadId: string, graphId: string, userId: string, priority: number, maxAttempts: number,
  deadlineAt: number | null, availableAt: number, budgetJson: string, inputJson: string | null, metadataJson: string,
  now: number, waitTtlMs: number | null, configJson: string | null,
];

/** Validates `input` and returns the columns of the run it creates at `now` (nothing is written). */
export function newRunValues(input: CreateRunInput, now: number): NewRunValues {
  assertIntegers(input);
  const budget = validateBudget(input.budget);
  const config = validateGraphConfig(input.config);
  const runId = input.runId ?? newRunId(now);
  return [
    runId,
    input.threadId ?? defaultThreadId(runId),
    input.graphId,
    input.userId ?? "anonymous",
    input.priority ?? 0,
    input.maxAttempts ?? 3,
    input.deadlineAt ?? null,
    input.availableAt ?? now,
    encodeBudget(budget),
    toJson(input.input ?? null),
    JSON.stringify(input.metadata ?? {}),
    now,
    input.waitTtlMs ?? null,
    encodeConfig(config),
  ];
}

function assertIntegers(input: CreateRunInput): void {
  const fields = {
    priority: input.priority, maxAttempts: input.maxAttempts, deadlineAt: input.deadlineAt, availableAt: input.availableAt, waitTtlMs: input.waitTtlMs,
  };
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined && !Number.isSafeInteger(value)) {
      throw new UserInputError("BAD_INPUT", `run ${name} must be an integer (got ${value})`, { details: { [name]: value } });
    }
  }
  if (input.maxAttempts !== undefined && input.maxAttempts < 1) throw new UserInputError("BAD_INPUT", "run maxAttempts must be at least 1");
  if (input.waitTtlMs !== undefined && input.waitTtlMs < 1) throw new UserInputError("BAD_INPUT", `run waitTtlMs must be at least 1 ms (got ${input.waitTtlMs})`);
}
