/**
 * Fixed records of the simulated order system.
 * @module
 */

/** An order as get_order returns it. */
export interface Order {
  orderId: string;
  customer: string;
  salesRepId: string;
  items: Array<{ sku: string; name: string; quantity: number }>;
  status: "on_time" | "delayed";
  promisedDelivery: string;
  expectedDelivery: string;
  delayReason: string | null;
}

/** A sales rep as get_sales_rep returns it. */
export interface SalesRep {
  repId: string;
  name: string;
  email: string;
  channel: "email" | "chat";
}

/** A shipment as check_logistics returns it. */
export interface Shipment {
  carrier: string;
  trackingNumber: string;
  location: string;
  status: "in_transit" | "held_at_hub" | "delivered";
  estimatedArrival: string;
}

/** Orders by number. */
export const ORDERS: Readonly<Record<string, Order>> = {
  "10086": {
    orderId: "10086", customer: "Hengtai Trading Co.", salesRepId: "rep_wang",
    items: [{ sku: "SKU-PRN-220", name: "Thermal receipt printer", quantity: 40 }, { sku: "SKU-PAP-080", name: "Receipt paper roll 80mm", quantity: 400 }],
    status: "delayed", promisedDelivery: "2026-05-10", expectedDelivery: "2026-05-16",
    delayReason: "shipment held at the Shanghai hub: carrier capacity shortage",
  },
  "10087": {
    orderId: "10087", customer: "Lanting Cafe Group", salesRepId: "rep_chen",
    items: [{ sku: "SKU-POS-510", name: "POS terminal", quantity: 12 }],
    status: "on_time", promisedDelivery: "2026-05-14", expectedDelivery: "2026-05-13", delayReason: null,
  },
  "10088": {
    orderId: "10088", customer: "Hengtai Trading Co.", salesRepId: "rep_wang",
    items: [{ sku: "SKU-PAP-080", name: "Receipt paper roll 80mm", quantity: 200 }],
    status: "on_time", promisedDelivery: "2026-05-15", expectedDelivery: "2026-05-15", delayReason: null,
  },
  "20001": {
    orderId: "20001", customer: "Northwind Retail", salesRepId: "rep_li",
    items: [{ sku: "SKU-SCN-300", name: "Barcode scanner", quantity: 25 }, { sku: "SKU-POS-510", name: "POS terminal", quantity: 5 }],
    status: "on_time", promisedDelivery: "2026-05-20", expectedDelivery: "2026-05-19", delayReason: null,
  },
};

/** Sales reps by id. */
export const SALES_REPS: Readonly<Record<string, SalesRep>> = {
  rep_wang: { repId: "rep_wang", name: "Wang Fang", email: "wang.fang@example.com", channel: "chat" },
  rep_chen: { repId: "rep_chen", name: "Chen Jie", email: "chen.jie@example.com", channel: "email" },
  rep_li: { repId: "rep_li", name: "Li Na", email: "li.na@example.com", channel: "chat" },
};

/** Units in stock by SKU. */
export const STOCK: Readonly<Record<string, number>> = {
  "SKU-PRN-220": 18,
  "SKU-PAP-080": 5200,
  "SKU-POS-510": 64,
  "SKU-SCN-300": 140,
};

/** Shipments by order number. */
export const SHIPMENTS: Readonly<Record<string, Shipment>> = {
  "10086": { carrier: "SF Express", trackingNumber: "SF1400286517", location: "Shanghai hub", status: "held_at_hub", estimatedArrival: "2026-05-16" },
  "10087": { carrier: "JD Logistics", trackingNumber: "JD0098812231", location: "Hangzhou", status: "in_transit", estimatedArrival: "2026-05-13" },
  "10088": { carrier: "SF Express", trackingNumber: "SF1400291004", location: "Suzhou", status: "in_transit", estimatedArrival: "2026-05-15" },
  "20001": { carrier: "ZTO Express", trackingNumber: "ZTO7731920044", location: "Guangzhou", status: "in_transit", estimatedArrival: "2026-05-19" },
};
