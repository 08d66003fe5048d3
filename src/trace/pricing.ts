/**
 * Model pricing: USD per million input and output tokens, looked up by model
 * name. Users override or extend the table; unknown models cost 0 and say so.
 * @module
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { UserInputError } from "../errors.js";

/** The price of one model, in USD per million tokens. */
export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
  /** Why the price is what it is, e.g. "nominal: not a real price". */
  note?: string;
}

/** Model name → price. Dated snapshots ("gpt-4o-2024-08-06") fall back to their family ("gpt-4o"). */
export type PricingTable = Readonly<Record<string, ModelPrice>>;

/** Token counts of one or more model calls. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/** What {@link priceFor} returns: the cost split by direction, and whether the model was priced at all. */
export interface Cost {
  inputUsd: number;
  outputUsd: number;
  totalUsd: number;
  /** False when the model is not in the table; the cost is then 0. */
  priced: boolean;
}

/** The name the offline scripted model reports; priced nominally so cost shows in demos. */
export const SCRIPTED_MODEL = "scripted";

/**
 * Built-in prices (OpenAI list prices, standard tier, USD per 1M tokens, as of
 * 2025). The scripted model has a small *nominal* price so the offline demo
 * shows non-zero cost; it is not money anyone pays.
 */
export const DEFAULT_PRICING: PricingTable = {
  "gpt-5": { inputPerMillion: 1.25, outputPerMillion: 10 },
  "gpt-5-mini": { inputPerMillion: 0.25, outputPerMillion: 2 },
  "gpt-5-nano": { inputPerMillion: 0.05, outputPerMillion: 0.4 },
  "gpt-4.1": { inputPerMillion: 2, outputPerMillion: 8 },
  "gpt-4.1-mini": { inputPerMillion: 0.4, outputPerMillion: 1.6 },
  "gpt-4.1-nano": { inputPerMillion: 0.1, outputPerMillion: 0.4 },
  "gpt-4o": { inputPerMillion: 2.5, outputPerMillion: 10 },
  "gpt-4o-mini": { inputPerMillion: 0.15, outputPerMillion: 0.6 },
  "gpt-4-turbo": { inputPerMillion: 10, outputPerMillion: 30 },
  "gpt-3.5-turbo": { inputPerMillion: 0.5, outputPerMillion: 1.5 },
  o1: { inputPerMillion: 15, outputPerMillion: 60 },
  o3: { inputPerMillion: 2, outputPerMillion: 8 },
  "o3-mini": { inputPerMillion: 1.1, outputPerMillion: 4.4 },
  "o4-mini": { inputPerMillion: 1.1, outputPerMillion: 4.4 },
  [SCRIPTED_MODEL]: { inputPerMillion: 0.1, outputPerMillion: 0.4, note: "nominal: offline scripted model, not a real price" },
};

/** The built-in table with the user's entries on top (theirs win). */
export function resolvePricing(overrides: PricingTable = {}): PricingTable {
  return { ...DEFAULT_PRICING, ...overrides };
}

/**
 * The table entry for a model: exact name first, then the longest family
 * prefix ending at a "-" (so "gpt-4o-mini-2024-07-18" → "gpt-4o-mini").
 */
export function lookupPrice(model: string, table: PricingTable = DEFAULT_PRICING): ModelPrice | undefined {
  const exact = table[model];
  if (exact !== undefined) return exact;
  for (let cut = model.lastIndexOf("-"); cut > 0; cut = model.lastIndexOf("-", cut - 1)) {
    const family = table[model.slice(0, cut)];
    if (family !== undefined) return family;
  }
  return undefined;
}

/**
 * The cost of `usage` on `model`.
 * @example priceFor("gpt-4o-mini", { inputTokens: 1000, outputTokens: 200 }).totalUsd // 0.00027
 */
export function priceFor(model: string, usage: TokenUsage, table: PricingTable = DEFAULT_PRICING): Cost {
  const price = lookupPrice(model, table);
  if (price === undefined) return { inputUsd: 0, outputUsd: 0, totalUsd: 0, priced: false };
  const inputUsd = (usage.inputTokens * price.inputPerMillion) / 1_000_000;
  const outputUsd = (usage.outputTokens * price.outputPerMillion) / 1_000_000;
  return { inputUsd, outputUsd, totalUsd: inputUsd + outputUsd, priced: true };
}

const pricingFile = z.record(
  z.string().min(1),
  z.object({
    inputPerMillion: z.number().nonnegative(),
    outputPerMillion: z.number().nonnegative(),
    note: z.string().optional(),
  }),
);

/** Reads a user pricing file (`{ "model": { "inputPerMillion": n, "outputPerMillion": n } }`). */
export function loadPricingFile(path: string): PricingTable {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new UserInputError("BAD_INPUT", `${path}: cannot read pricing file (${(error as Error).message})`, { cause: error });
  }
  const parsed = pricingFile.safeParse(raw);
  if (!parsed.success) {
    throw new UserInputError("BAD_INPUT", `${path}: invalid pricing file (${parsed.error.issues[0]?.message ?? "bad shape"})`);
  }
  return parsed.data;
}
