import { describe, expect, it } from "vitest";
import { exhaustedBudget } from "../../src/runs/index.js";

const usage = { steps: 3, modelCalls: 2, tokens: 900, costUsd: 0.4 };

describe("exhaustedBudget", () => {
  it("is undefined while every limit has room, or without limits", () => {
    expect(exhaustedBudget(usage, {})).toBeUndefined();
    expect(exhaustedBudget(usage, { maxSteps: 4, maxTokens: 1000, maxCostUsd: 0.5 })).toBeUndefined();
  });

  it("names the first limit reached", () => {
    expect(exhaustedBudget(usage, { maxSteps: 3 })).toEqual({ limit: "maxSteps", max: 3, used: 3 });
    expect(exhaustedBudget(usage, { maxSteps: 10, maxCostUsd: 0.25 })).toEqual({ limit: "maxCostUsd", max: 0.25, used: 0.4 });
  });
});
