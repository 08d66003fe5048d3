/**
 * Simulated order system: orders, their sales reps, stock and shipments.
 * Order 10086 is delayed; every other order is on time.
 * @module
 */
import { defineTool } from "agentrt";
import { callSim, type SimSystem } from "agentrt/testing";
import { z } from "zod";
import { ORDERS, SALES_REPS, SHIPMENTS, STOCK, type Order } from "./orders-data.js";

/** The order system keeps no mutable state; its records are fixed. */
export const ordersSystem: SimSystem = { name: "orders", seed: {} };

const orderId = z.string().min(1).describe('Order number, e.g. "10086"');

function notFound(id: string) {
  return { found: false as const, orderId: id, message: `no order ${id}; known orders: ${Object.keys(ORDERS).join(", ")}` };
}

function lookup(id: string): Order | undefined {
  return ORDERS[id.trim().replace(/^#/, "")];
}

/** Order status with promised and expected delivery dates. */
export const getOrder = defineTool({
  name: "get_order",
  description:
    "Look up an order by number: customer, items, status (on_time or delayed), promised and expected delivery dates and the delay reason. Use it before deciding whether anyone must be notified.",
  schema: z.object({ order_id: orderId }),
  risk: "read",
  tags: ["orders"],
  execute: (args, ctx) =>
    callSim(ctx, { system: ordersSystem, tool: "get_order", sideEffect: false }, () => {
      const order = lookup(args.order_id);
      return order === undefined ? notFound(args.order_id) : { found: true as const, ...order };
    }),
});

/** The sales rep responsible for an order's customer. */
export const getSalesRep = defineTool({
  name: "get_sales_rep",
  description:
    "Find the sales representative responsible for an order's customer, with the id to use as the recipient of send_message.",
  schema: z.object({ order_id: orderId }),
  risk: "read",
  tags: ["orders", "crm"],
  execute: (args, ctx) =>
    callSim(ctx, { system: ordersSystem, tool: "get_sales_rep", sideEffect: false }, () => {
      const order = lookup(args.order_id);
      if (order === undefined) return notFound(args.order_id);
      const rep = SALES_REPS[order.salesRepId];
      return { found: true as const, orderId: order.orderId, customer: order.customer, ...rep };
    }),
});

/** Warehouse stock for an order's items. */
export const checkInventory = defineTool({
  name: "check_inventory",
  description: "Check warehouse stock for every item of an order: units available versus units ordered.",
  schema: z.object({ order_id: orderId }),
  risk: "read",
  tags: ["orders", "inventory"],
  execute: (args, ctx) =>
    callSim(ctx, { system: ordersSystem, tool: "check_inventory", sideEffect: false }, () => {
      const order = lookup(args.order_id);
      if (order === undefined) return notFound(args.order_id);
      const items = order.items.map((item) => {
        const available = STOCK[item.sku] ?? 0;
        return { sku: item.sku, name: item.name, ordered: item.quantity, available, sufficient: available >= item.quantity };
      });
      return { found: true as const, orderId: order.orderId, allInStock: items.every((i) => i.sufficient), items };
    }),
});

/** Shipment tracking for an order. */
export const checkLogistics = defineTool({
  name: "check_logistics",
  description: "Track an order's shipment: carrier, tracking number, current location, status and estimated arrival.",
  schema: z.object({ order_id: orderId }),
  risk: "read",
  tags: ["orders", "logistics"],
  execute: (args, ctx) =>
    callSim(ctx, { system: ordersSystem, tool: "check_logistics", sideEffect: false }, () => {
      const order = lookup(args.order_id);
      if (order === undefined) return notFound(args.order_id);
      return { found: true as const, orderId: order.orderId, ...SHIPMENTS[order.orderId] };
    }),
});
