/**
 * Simulated deploy platform. The payments service's latest deploy (rev-185)
 * failed; rolling back to rev-184 is what recovers it.
 * @module
 */
import { defineTool, ToolError } from "agentrt";
import { callSim, type SimState, type SimSystem } from "agentrt/testing";
import { z } from "zod";

/** One revision in a service's history, newest first. */
export interface Revision {
  revision: string;
  image: string;
  deployedAt: string;
  status: "healthy" | "failed" | "superseded";
}

/** A service as the deploy platform stores it. */
export interface ServiceDeployment {
  service: string;
  currentRevision: string;
  status: "healthy" | "failed" | "rolled_back";
  history: Revision[];
  rollbacks: Array<{ operationId: string; from: string; to: string }>;
}

const service = (name: string, status: ServiceDeployment["status"], history: Revision[]): ServiceDeployment => ({
  service: name,
  currentRevision: history[0]?.revision ?? "none",
  status,
  history,
  rollbacks: [],
});

/** The deploy platform and its seeded services. */
export const deploySystem: SimSystem = {
  name: "deploy",
  seed: {
    "service:payments": service("payments", "failed", [
      { revision: "rev-185", image: "payments:2.14.0", deployedAt: "2026-05-12T09:40:00Z", status: "failed" },
      { revision: "rev-184", image: "payments:2.13.2", deployedAt: "2026-05-05T08:15:00Z", status: "healthy" },
      { revision: "rev-183", image: "payments:2.13.1", deployedAt: "2026-04-28T10:02:00Z", status: "superseded" },
    ]),
    "service:checkout": service("checkout", "healthy", [
      { revision: "rev-92", image: "checkout:5.2.0", deployedAt: "2026-05-11T14:20:00Z", status: "healthy" },
      { revision: "rev-91", image: "checkout:5.1.9", deployedAt: "2026-05-02T11:00:00Z", status: "superseded" },
    ]),
    "service:search": service("search", "healthy", [
      { revision: "rev-310", image: "search:1.40.3", deployedAt: "2026-05-09T16:45:00Z", status: "healthy" },
    ]),
  },
};

const serviceArg = z.string().min(1).describe('Service name, e.g. "payments", "checkout" or "search"');

function load(state: SimState, name: string): ServiceDeployment {
  const found = state.get<ServiceDeployment>(`service:${name}`);
  if (found === undefined) {
    const known = state.entries("service:").map(([key]) => key.slice("service:".length));
    throw new ToolError("TOOL_ARGS_INVALID", `unknown service "${name}"; known services: ${known.join(", ")}`);
  }
  return found;
}

/** Reads the current deployment of a service. */
export const getDeployment = defineTool({
  name: "get_deployment",
  description:
    "Get the latest deployment of a service: current revision, status (healthy, failed or rolled_back) and recent revision history with the previous healthy revision. Use it first when investigating a failed release.",
  schema: z.object({ service: serviceArg }),
  risk: "read",
  tags: ["ops", "deploy"],
  execute: (args, ctx) =>
    callSim(ctx, { system: deploySystem, tool: "get_deployment", sideEffect: false }, ({ state }) => {
      const deployment = load(state, args.service);
      const previousHealthy = deployment.history.find((r) => r.revision !== deployment.currentRevision && r.status !== "failed");
      return {
        service: deployment.service,
        currentRevision: deployment.currentRevision,
        status: deployment.status,
        previousHealthyRevision: previousHealthy?.revision ?? null,
        history: deployment.history,
      };
    }),
});

/** Rolls a service back to an earlier revision: destructive, deduped on the idempotency key. */
export const rollbackDeployment = defineTool({
  name: "rollback_deployment",
  description:
    "Roll a service back to an earlier revision from its history. Destructive: it replaces the running revision in production and needs approval. Returns the platform's operation id.",
  schema: z.object({
    service: serviceArg,
    target_revision: z.string().min(1).describe('Revision to roll back to, e.g. "rev-184"'),
  }),
  risk: "destructive",
  sideEffect: true,
  idempotent: true,
  tags: ["ops", "deploy"],
  execute: (args, ctx) =>
    callSim(ctx, { system: deploySystem, tool: "rollback_deployment", sideEffect: true }, ({ state, operationId }) => {
      const deployment = load(state, args.service);
      const target = deployment.history.find((r) => r.revision === args.target_revision);
      if (target === undefined || target.revision === deployment.currentRevision) {
        throw new ToolError(
          "TOOL_ARGS_INVALID",
          `cannot roll ${args.service} back to "${args.target_revision}": not an earlier revision (current ${deployment.currentRevision})`,
        );
      }
      const from = deployment.currentRevision;
      const id = operationId ?? "op_unknown";
      state.set(`service:${args.service}`, {
        ...deployment,
        currentRevision: target.revision,
        status: "rolled_back",
        rollbacks: [...deployment.rollbacks, { operationId: id, from, to: target.revision }],
      } satisfies ServiceDeployment);
      return { operationId: id, service: args.service, fromRevision: from, toRevision: target.revision, status: "completed" };
    }),
});

/** Health check after a change: recovered only once a rollback has happened. */
export const verifyDeployment = defineTool({
  name: "verify_deployment",
  description:
    "Run a health check on a service's running revision: error rate, p95 latency and whether it has recovered. Use it after a rollback to confirm the service is healthy again.",
  schema: z.object({ service: serviceArg }),
  risk: "read",
  tags: ["ops", "deploy"],
  execute: (args, ctx) =>
    callSim(ctx, { system: deploySystem, tool: "verify_deployment", sideEffect: false }, ({ state }) => {
      const deployment = load(state, args.service);
      const failing = deployment.status === "failed";
      return {
        service: deployment.service,
        revision: deployment.currentRevision,
        healthy: !failing,
        recovered: deployment.status === "rolled_back",
        errorRatePercent: failing ? 37.5 : 0.2,
        p95LatencyMs: failing ? 4200 : 180,
        summary: failing
          ? `${deployment.service} ${deployment.currentRevision} is unhealthy: 37.5% of requests fail`
          : `${deployment.service} ${deployment.currentRevision} is healthy: error rate 0.2%, p95 180 ms`,
      };
    }),
});
