import type { z } from "zod";
import type { RunDatabase } from "../db/index.js";
import type { ToolLimitSpec, ToolRetryPolicy } from "../resilience/index.js";

/** A tool's retry policy and limits; they live with retry and the limiters in src/resilience. */
export type { ToolLimitSpec, ToolRetryPolicy };

/** How dangerous a tool is; policy defaults and the taint rule key off it. */
export type ToolRisk = "read" | "write" | "destructive";

/** What a tool's `execute` receives besides its validated arguments. */
export interface ToolContext {
  /** The run this call belongs to. */
  runId: string;
  /** The LangGraph thread of the run. */
  threadId: string;
  /** The model's id for this tool call; stable across replays. */
  toolCallId: string;
  /**
   * `${runId}:${toolCallId}:${actionVersion}`: identical on every retry and on
   * recovery in another process, so an external system can dedupe the call.
   */
  idempotencyKey: string;
  /** The user the run acts for. */
  user: string;
  /** 1 for the first attempt, incremented by retries. */
  attempt: number;
  /** Aborted on timeout or cancel; long calls must honour it. */
  signal: AbortSignal;
  /** The run database when agentrt runs the tool (undefined under a foreign host). */
  db: RunDatabase | undefined;
  /** Records the id the external system gave this operation (ledger and trace keep it). */
  setExternalOperationId(id: string): void;
}

/** Everything a developer states about a tool; see {@link defineTool}. */
export interface ToolSpec<Schema extends z.ZodType = z.ZodType, Result = unknown> {
  /** Unique name the model calls it by. */
  name: string;
  /** What it does, written for the model. */
  description: string;
  /** zod schema of the arguments; the model's arguments are validated against it. */
  schema: Schema;
  /** How dangerous the tool is. */
  risk: ToolRisk;
  /** Whether calling it changes the outside world. @default risk !== "read" */
  sideEffect?: boolean;
  /** Whether the external system dedupes on `ctx.idempotencyKey`. @default false */
  idempotent?: boolean;
  /** Per-call timeout; the call's signal aborts when it passes. @default 30000 */
  timeoutMs?: number;
  /** Free-form labels for discovery and policy. @default [] */
  tags?: string[];
  /** Retry policy. @default one attempt */
  retry?: ToolRetryPolicy;
  /**
   * Rate limit, concurrency cap and breaker rules. On PostgreSQL they hold across every process on the database
   * (each check is a statement); undeclared, a call costs the database nothing and its breaker is this process's.
   * @default none (the process-wide breaker with its defaults)
   */
  limits?: ToolLimitSpec;
  /** Name of a tool to call instead when this one keeps failing. */
  fallback?: string;
  /** Argument paths replaced by "[redacted]" in traces, e.g. ["token"]. @default [] */
  redact?: string[];
  /** Performs the call. The result must be JSON-serialisable. */
  execute: (args: z.infer<Schema>, ctx: ToolContext) => Promise<Result> | Result;
}

/** A tool after {@link defineTool}: defaults resolved, ready for a registry. */
export interface AgentTool<Schema extends z.ZodType = z.ZodType, Result = unknown>
  extends Required<Omit<ToolSpec<Schema, Result>, "fallback" | "retry" | "limits">> {
  retry: Required<Omit<ToolRetryPolicy, "retryOn">> & Pick<ToolRetryPolicy, "retryOn">;
  fallback: string | undefined;
  /** Limits shared by every process on PostgreSQL; optional so a tool built by hand, not by defineTool, still compiles. */
  limits?: ToolLimitSpec;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Declares a tool the model may call. Risk, side effects and timeout are part
 * of the declaration because policy and the executor act on them.
 * @example
 * const getWeather = defineTool({
 *   name: "get_weather", description: "Current weather for a city", risk: "read",
 *   schema: z.object({ city: z.string() }),
 *   execute: async ({ city }) => ({ city, tempC: 21 }),
 * });
 */
export function defineTool<Schema extends z.ZodType, Result>(
  spec: ToolSpec<Schema, Result>,
): AgentTool<Schema, Result> {
  if (!TOOL_NAME.test(spec.name)) {
    throw new TypeError(`defineTool: invalid tool name "${spec.name}" (letters, digits, _ and -, at most 64)`);
  }
  return {
    name: spec.name,
    description: spec.description,
    schema: spec.schema,
    risk: spec.risk,
    sideEffect: spec.sideEffect ?? spec.risk !== "read",
    idempotent: spec.idempotent ?? false,
    timeoutMs: spec.timeoutMs ?? 30_000,
    tags: spec.tags ?? [],
    retry: {
      attempts: spec.retry?.attempts ?? 1,
      initialDelayMs: spec.retry?.initialDelayMs ?? 200,
      maxDelayMs: spec.retry?.maxDelayMs ?? 5000,
      retryOn: spec.retry?.retryOn,
    },
    fallback: spec.fallback,
    limits: spec.limits,
    redact: spec.redact ?? [],
    execute: spec.execute,
  };
}
