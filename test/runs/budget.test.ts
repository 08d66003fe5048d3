import { describe, expect, it } from "vitest";
import { BudgetExceededError, exhaustedBudget, passedDeadline, validateBudget } from "../../src/runs/index.js";

const usage = { steps: 3, modelCalls: 2, tokens: 900, costUsd: 0.4 };

describe("exhaustedBudget", () => {
  it("is undefined while every limit has room, or without limits", () => {
    expect(exhaustedBudget(usage, {})).toBeUndefined();
    expect(exhaustedBudget(usage, { maxSteps: 4, maxTokens: 1000, maxCostUsd: 0.5 })).toBeUndefined();
  });

  it("names the first limit reached, with its stable code", () => {
    expect(exhaustedBudget(usage, { maxSteps: 3 })).toEqual({ limit: "maxSteps", code: "BUDGET_STEPS", max: 3, used: 3, next: 0 });
    expect(exhaustedBudget(usage, { maxSteps: 10, maxCostUsd: 0.25 })).toMatchObject({ limit: "maxCostUsd", code: "BUDGET_COST", used: 0.4 });
  });

  it("stops a call that would surely pass a limit: what it adds counts", () => {
    const next = { steps: 1, modelCalls: 1, tokens: 150, costUsd: 0.05 };
    expect(exhaustedBudget(usage, { maxTokens: 1000 }, next)).toMatchObject({ code: "BUDGET_TOKENS", used: 900, next: 150 });
    expect(exhaustedBudget(usage, { maxTokens: 1050 }, next)).toBeUndefined();
    expect(exhaustedBudget(usage, { maxCostUsd: 0.44 }, next)).toMatchObject({ code: "BUDGET_COST" });
    expect(exhaustedBudget(usage, { maxModelCalls: 3 }, next)).toBeUndefined();
    expect(exhaustedBudget(usage, { maxModelCalls: 2 }, next)).toMatchObject({ code: "BUDGET_MODEL_CALLS" });
  });
});

describe("passedDeadline", () => {
  it("counts wall-clock time from the run's first start", () => {
    expect(passedDeadline({ deadlineMs: 100 }, 1000, 1099)).toBeUndefined();
    expect(passedDeadline({ deadlineMs: 100 }, 1000, 1100)).toMatchObject({ code: "DEADLINE_EXCEEDED", used: 100 });
    expect(passedDeadline({}, 0, Number.MAX_SAFE_INTEGER)).toBeUndefined();
  });

  it("becomes a coded error", () => {
    const error = new BudgetExceededError(passedDeadline({ deadlineMs: 5 }, 0, 9)!);
    expect(error).toMatchObject({ code: "DEADLINE_EXCEEDED", limit: "deadlineMs" });
    expect(error.message).toMatch(/deadline of 5 ms passed/);
  });
});

describe("validateBudget", () => {
  it("keeps valid limits (0 allowed) and drops absent ones", () => {
    expect(validateBudget(undefined)).toEqual({});
    expect(validateBudget({ maxSteps: 0, maxCostUsd: 0.25, deadlineMs: undefined })).toEqual({ maxSteps: 0, maxCostUsd: 0.25 });
  });

  it.each([
    [{ maxSteps: -1 }], [{ maxTokens: 1.5 }], [{ maxCostUsd: Number.NaN }], [{ maxCostUsd: -0.01 }], [{ deadlineMs: "10" }],
    [{ maxWhatever: 1 }], [[1]], ["budget"],
  ])("refuses %j as BAD_INPUT", (budget) => {
    expect(() => validateBudget(budget)).toThrowError(expect.objectContaining({ code: "BAD_INPUT" }));
  });
});
