/**
 * The order check as a declared DAG (`defineDag`), no model involved:
 * get_order → (check_inventory ∥ check_logistics) → assess → answer.
 * Each check starts the moment the order is read and runs beside the other
 * (their tool_call spans overlap in the trace); Studio, `agentrt graph` and
 * `/ui` draw these five nodes. A request without an order number pauses
 * WAITING_INPUT and continues with the answer. Same answer as `order_check`,
 * whose model plans this DAG itself.
 * @module
 */
import { isHumanMessage, coerceMessageLikeToMessage, type BaseMessageLike } from "@langchain/core/messages";
import { interrupt } from "@langchain/langgraph";
import { defineDag, type AgentTool } from "agentrt";
import { checkInventory, checkLogistics, getOrder, type Order } from "./sim/index.js";
import { assessOrder, orderReport, type Inventory, type Logistics, type NotFound } from "./order_check.js";
import { ORDER_ID_QUESTION, orderIdIn } from "./order_delay-request.js";
import { callToolFromNode } from "./node-tool.js";

/** The pipeline's state: the request in, each node's finding, the answer out. */
export interface OrderPipelineState {
  /** The request (`agentrt run --message`), as LangChain message likes. */
  messages: BaseMessageLike[];
  /** The order to check; read from the request when not given. */
  order_id: string | undefined;
  order: ({ found: true } & Order) | NotFound | undefined;
  inventory: Inventory | undefined;
  logistics: Logistics | undefined;
  /** Why a check gave no answer (its last error). */
  failures: { inventory?: string; logistics?: string };
  assessment: string | undefined;
  /** The answer: the run's result. */
  result: string | undefined;
}

/** The checks are read-only lookups: retried inside their own branch, so the other branch never waits for it. */
const retried = (tool: AgentTool): AgentTool => ({ ...tool, retry: { ...tool.retry, attempts: 3, initialDelayMs: 20, maxDelayMs: 100 } });

function requestText(messages: readonly BaseMessageLike[]): string {
  const human = messages.map((m) => coerceMessageLikeToMessage(m)).filter((m) => isHumanMessage(m)).at(-1);
  return typeof human?.content === "string" ? human.content : JSON.stringify(human?.content ?? "");
}

/** Reads the order; without an order number, asks for one (WAITING_INPUT) and reads the answer. */
async function readOrder(state: OrderPipelineState): Promise<Partial<OrderPipelineState>> {
  const orderId = state.order_id ?? orderIdIn(requestText(state.messages)) ?? orderIdIn(interrupt<{ question: string }, string>({ question: ORDER_ID_QUESTION }));
  if (orderId === undefined) return { order_id: "", result: `I could not find an order number in your answer. ${ORDER_ID_QUESTION}` };
  const outcome = await callToolFromNode("get_order", retried(getOrder), { order_id: orderId });
  if (!outcome.ok) throw outcome.error;
  return { order_id: orderId, order: outcome.result as OrderPipelineState["order"] };
}

/** The branches run only for an order that exists. */
const known = (state: OrderPipelineState) => state.order?.found === true;

async function inventoryOf(state: OrderPipelineState): Promise<Partial<OrderPipelineState>> {
  if (!known(state)) return {};
  const outcome = await callToolFromNode("check_inventory", retried(checkInventory), { order_id: state.order_id });
  if (!outcome.ok) return { failures: { inventory: outcome.error.message } };
  const inventory = outcome.result as Inventory | NotFound;
  return inventory.found ? { inventory } : {};
}

async function logisticsOf(state: OrderPipelineState): Promise<Partial<OrderPipelineState>> {
  if (!known(state)) return {};
  const outcome = await callToolFromNode("check_logistics", retried(checkLogistics), { order_id: state.order_id });
  if (!outcome.ok) return { failures: { logistics: outcome.error.message } };
  const logistics = outcome.result as Logistics | NotFound;
  return logistics.found ? { logistics } : {};
}

function assess(state: OrderPipelineState): Partial<OrderPipelineState> {
  const order = state.order;
  return order?.found === true ? { assessment: assessOrder(order, state.inventory, state.logistics) } : {};
}

function answer(state: OrderPipelineState): Partial<OrderPipelineState> {
  if (state.result !== undefined) return {};
  const order = state.order;
  if (order === undefined || !order.found) return { result: `There is no order ${state.order_id ?? ""} (${order?.message ?? "not found"}).` };
  return { result: orderReport(state.order_id ?? order.orderId, order, state.inventory, state.logistics, state.failures) };
}

/** Declared once; `compile()` checks it (no cycle, no two unordered writers of one key). */
export const orderPipeline = defineDag<OrderPipelineState>({
  name: "order_pipeline",
  state: {
    messages: { default: () => [] },
    order_id: {},
    order: {},
    inventory: {},
    logistics: {},
    // Both checks may report a failure: their reports are merged, not a conflict.
    failures: { default: () => ({}), reducer: (current, update) => ({ ...current, ...update }) },
    assessment: {},
    result: {},
  },
})
  .node("get_order", readOrder, { writes: ["order_id", "order", "result"] })
  .node("check_inventory", inventoryOf, { after: ["get_order"], writes: ["inventory", "failures"] })
  .node("check_logistics", logisticsOf, { after: ["get_order"], writes: ["logistics", "failures"] })
  .node("assess", assess, { after: ["check_inventory", "check_logistics"], writes: ["assessment"] })
  .node("answer", answer, { after: ["assess"], writes: ["result"] });

/** The compiled pipeline; langgraph.json lists it (no checkpointer: the host attaches one). */
export const graph = orderPipeline.compile();
