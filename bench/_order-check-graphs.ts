// order_check for bench/dag.ts: the planned agent and its ReAct variant, each model call taking MODEL_LATENCY_MS as a real model would.
import { orderCheckAgent } from "../graphs/order_check.js";

/** Per offline model call; a fast hosted model answers in roughly this time or more. */
export const MODEL_LATENCY_MS = 200;

/** Plans get_order → (check_inventory ∥ check_logistics) in one turn. */
export const planned = orderCheckAgent("planned", { modelLatencyMs: MODEL_LATENCY_MS });

/** One step per model turn. */
export const react = orderCheckAgent("react", { modelLatencyMs: MODEL_LATENCY_MS });
