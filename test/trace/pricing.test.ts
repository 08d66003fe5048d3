import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { UserInputError } from "../../src/errors.js";
import { DEFAULT_PRICING, SCRIPTED_MODEL, loadPricingFile, lookupPrice, priceFor, resolvePricing } from "../../src/trace/index.js";
import { T0, freshStore, tempDbPath } from "./fixtures/seed.js";

describe("priceFor", () => {
  it("prices input and output per million tokens", async () => {
    const cost = priceFor("gpt-4o-mini", { inputTokens: 1000, outputTokens: 200 });
    expect(cost.priced).toBe(true);
    expect(cost.inputUsd).toBeCloseTo(0.00015, 12);
    expect(cost.outputUsd).toBeCloseTo(0.00012, 12);
    expect(cost.totalUsd).toBeCloseTo(0.00027, 12);
    expect(priceFor("gpt-4o", { inputTokens: 1_000_000, outputTokens: 1_000_000 }).totalUsd).toBeCloseTo(12.5, 9);
  });

  it("falls back from a dated snapshot to its model family, longest family first", async () => {
    expect(lookupPrice("gpt-4o-mini-2024-07-18")).toBe(DEFAULT_PRICING["gpt-4o-mini"]);
    expect(lookupPrice("gpt-4o-2024-08-06")).toBe(DEFAULT_PRICING["gpt-4o"]);
    expect(lookupPrice("gpt-4omni")).toBeUndefined(); // families end at a "-"
  });

  it("gives unknown models zero cost and says they are unpriced", async () => {
    expect(priceFor("my-local-llama", { inputTokens: 500, outputTokens: 500 })).toEqual({ inputUsd: 0, outputUsd: 0, totalUsd: 0, priced: false });
  });

  it("gives the scripted model a small nominal price, labelled as such", async () => {
    const price = lookupPrice(SCRIPTED_MODEL)!;
    expect(price.note).toMatch(/nominal/);
    expect(priceFor(SCRIPTED_MODEL, { inputTokens: 1_000_000, outputTokens: 0 }).totalUsd).toBeGreaterThan(0);
  });

  it("lets the user override and extend the table", async () => {
    const table = resolvePricing({ "gpt-4o-mini": { inputPerMillion: 1, outputPerMillion: 2 }, "my-llm": { inputPerMillion: 3, outputPerMillion: 0 } });
    expect(priceFor("gpt-4o-mini", { inputTokens: 1_000_000, outputTokens: 1_000_000 }, table).totalUsd).toBeCloseTo(3, 9);
    expect(priceFor("my-llm", { inputTokens: 2_000_000, outputTokens: 5 }, table).totalUsd).toBeCloseTo(6, 9);
    expect(priceFor("gpt-4o", { inputTokens: 1_000_000, outputTokens: 0 }, table).totalUsd).toBeCloseTo(2.5, 9);
  });
});

describe("cost in recorded spans", () => {
  it("stores cost per model call and sums it per run, with the store's pricing override", async () => {
    const { store } = freshStore({ pricing: { "gpt-4o-mini": { inputPerMillion: 10, outputPerMillion: 20 } } });
    const rec = await store.recorder("r1", { graph: "g", startTime: T0 });
    rec.recordModelCall({ model: "gpt-4o-mini", inputTokens: 100_000, outputTokens: 50_000, startTime: T0, endTime: T0 + 1 });
    rec.recordModelCall({ model: "gpt-4o-mini-2024-07-18", inputTokens: 100_000, outputTokens: 0, startTime: T0 + 1, endTime: T0 + 2 });
    rec.recordModelCall({ model: "gpt-4o", inputTokens: 10, outputTokens: 10, costUsd: 0.5, startTime: T0 + 2, endTime: T0 + 3 });
    rec.end({ endTime: T0 + 3 });
    const costs = (await store.spans("r1")).filter((s) => s.kind === "model_call").map((s) => s.costUsd);
    expect(costs[0]).toBeCloseTo(2, 9);
    expect(costs[1]).toBeCloseTo(1, 9);
    expect(costs[2]).toBe(0.5);
    const stats = await store.stats();
    expect(stats.recentRuns[0]!.costUsd).toBeCloseTo(3.5, 9);
    expect(stats.graphs[0]).toMatchObject({ graph: "g", runs: 1, modelCalls: 3, inputTokens: 200_010, outputTokens: 50_010 });
  });
});

describe("loadPricingFile", () => {
  it("reads a valid file and refuses a bad one with a UserInputError naming it", async () => {
    const good = `${tempDbPath()}.json`;
    writeFileSync(good, JSON.stringify({ "my-llm": { inputPerMillion: 1, outputPerMillion: 2 } }));
    expect(loadPricingFile(good)["my-llm"]).toEqual({ inputPerMillion: 1, outputPerMillion: 2 });
    const bad = `${tempDbPath()}.json`;
    writeFileSync(bad, JSON.stringify({ "my-llm": { inputPerMillion: -1 } }));
    expect(() => loadPricingFile(bad)).toThrow(UserInputError);
    expect(() => loadPricingFile(bad)).toThrow(bad);
  });
});
