/**
 * Simulated log search. The payments logs show why rev-185 must be rolled back.
 * @module
 */
import { defineTool } from "agentrt";
import { callSim, type SimSystem } from "agentrt/testing";
import { z } from "zod";

/** One log line. */
export interface LogEntry {
  timestamp: string;
  service: string;
  level: "debug" | "info" | "warn" | "error";
  revision: string;
  message: string;
}

/** Log search keeps no mutable state; its lines are fixed. */
export const logsSystem: SimSystem = { name: "logs", seed: {} };

/** Every log line the simulated log store holds, oldest first. */
export const LOG_ENTRIES: readonly LogEntry[] = [
  { timestamp: "2026-05-12T09:38:02Z", service: "payments", level: "info", revision: "rev-184", message: "settlement batch 8812 completed in 412 ms" },
  { timestamp: "2026-05-12T09:40:05Z", service: "payments", level: "info", revision: "rev-185", message: "rollout of rev-185 (payments:2.14.0) started, 3 replicas" },
  { timestamp: "2026-05-12T09:40:41Z", service: "payments", level: "error", revision: "rev-185", message: "SettlementClient init failed: missing required config PAYMENTS_SETTLEMENT_URL" },
  { timestamp: "2026-05-12T09:40:42Z", service: "payments", level: "error", revision: "rev-185", message: "POST /v1/charges 503: settlement backend unavailable (SettlementClient not initialised)" },
  { timestamp: "2026-05-12T09:41:10Z", service: "payments", level: "warn", revision: "rev-185", message: "readiness probe failed on 3/3 replicas" },
  { timestamp: "2026-05-12T09:42:00Z", service: "payments", level: "error", revision: "rev-185", message: "error rate 37.5% over 5 min exceeds 5% SLO; deploy marked failed. Config key PAYMENTS_SETTLEMENT_URL was introduced in 2.14.0 and is absent in production; previous revision rev-184 does not need it" },
  { timestamp: "2026-05-11T14:21:30Z", service: "checkout", level: "info", revision: "rev-92", message: "rollout of rev-92 completed, 4/4 replicas ready" },
  { timestamp: "2026-05-12T09:43:12Z", service: "checkout", level: "warn", revision: "rev-92", message: "upstream payments returned 503 for 212 requests in the last minute" },
  { timestamp: "2026-05-09T16:47:00Z", service: "search", level: "info", revision: "rev-310", message: "index rebuilt: 1,204,332 documents" },
];

const LEVELS = ["debug", "info", "warn", "error"] as const;

/** Searches the logs of one service. */
export const queryLogs = defineTool({
  name: "query_logs",
  description:
    "Search a service's logs, newest first. Filter by minimum level (debug < info < warn < error) and optionally by text contained in the message. Use it to find the error behind a failed deploy.",
  schema: z.object({
    service: z.string().min(1).describe('Service name, e.g. "payments"'),
    level: z.enum(LEVELS).optional().describe('Minimum level to return; default "info"'),
    contains: z.string().optional().describe("Only lines whose message contains this text (case-insensitive)"),
    limit: z.number().int().min(1).max(100).optional().describe("Maximum lines to return; default 20"),
  }),
  risk: "read",
  tags: ["ops", "logs"],
  execute: (args, ctx) =>
    callSim(ctx, { system: logsSystem, tool: "query_logs", sideEffect: false }, () => {
      const minLevel = LEVELS.indexOf(args.level ?? "info");
      const needle = args.contains?.toLowerCase();
      const entries = LOG_ENTRIES.filter(
        (e) =>
          e.service === args.service &&
          LEVELS.indexOf(e.level) >= minLevel &&
          (needle === undefined || e.message.toLowerCase().includes(needle)),
      )
        .slice()
        .sort((a, b) => b.timestamp.localeCompare(a.timestamp))
        .slice(0, args.limit ?? 20);
      return { service: args.service, count: entries.length, entries };
    }),
});
