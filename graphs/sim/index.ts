/**
 * The simulated external systems of the scenario graphs and their tools.
 * @module
 */
import type { AgentTool } from "agentrt";
import { getDeployment, rollbackDeployment, verifyDeployment } from "./deploy.js";
import { deleteTicket, getTicket, rerankDocs, searchDocs } from "./documents.js";
import { queryLogs } from "./logs.js";
import { sendMessage } from "./messaging.js";
import { checkInventory, checkLogistics, getOrder, getSalesRep } from "./orders.js";
import { getWeather } from "./weather.js";

export { getDeployment, rollbackDeployment, verifyDeployment, deploySystem } from "./deploy.js";
export type { Revision, ServiceDeployment } from "./deploy.js";
export { queryLogs, logsSystem, LOG_ENTRIES } from "./logs.js";
export type { LogEntry } from "./logs.js";
export { getOrder, getSalesRep, checkInventory, checkLogistics, ordersSystem } from "./orders.js";
export type { Order, SalesRep, Shipment } from "./orders-data.js";
export { sendMessage, messagingSystem } from "./messaging.js";
export type { SentMessage } from "./messaging.js";
export { getWeather, weatherFor, weatherSystem, KNOWN_WEATHER } from "./weather.js";
export type { WeatherReading } from "./weather.js";
export { searchDocs, rerankDocs, getTicket, deleteTicket, helpdeskSystem } from "./documents.js";
export { DOC_PASSAGES, SEED_TICKETS } from "./documents-data.js";
export type { DocPassage, Ticket } from "./documents-data.js";
export { openWorld, SIM_SYSTEMS } from "./world.js";

/** Every simulated tool, by name. */
export const simTools = {
  get_deployment: getDeployment,
  query_logs: queryLogs,
  rollback_deployment: rollbackDeployment,
  verify_deployment: verifyDeployment,
  get_order: getOrder,
  get_sales_rep: getSalesRep,
  check_inventory: checkInventory,
  check_logistics: checkLogistics,
  send_message: sendMessage,
  get_weather: getWeather,
  search_docs: searchDocs,
  rerank_docs: rerankDocs,
  get_ticket: getTicket,
  delete_ticket: deleteTicket,
} satisfies Record<string, AgentTool>;

/** The simulated tools as a list, e.g. for a registry. */
export const allSimTools: AgentTool[] = Object.values(simTools);
