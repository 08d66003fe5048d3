/**
 * The state of an agent graph. Messages and steps are delta channels, so a
 * long thread does not store its whole history again at every checkpoint.
 * @module
 */
import { DeltaValue, MessagesDeltaValue, ReducedValue, StateSchema } from "@langchain/langgraph";
import { z } from "zod";

const stepSchema = z.object({
  turn: z.number(),
  toolCallId: z.string(),
  tool: z.string(),
  status: z.enum(["done", "failed", "denied", "rejected"]),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  approvedBy: z.string().nullable(),
  externalOperationId: z.string().nullable(),
  /** Tool attempts made; 0 when the call never reached the tool (invalid, denied, rejected). */
  attempts: z.number(),
  /** The fallback tool that produced the result, when the called tool failed. */
  fallback: z.string().nullable(),
  startedAt: z.number(),
  endedAt: z.number(),
});

/** One finished tool step as recorded in state. */
export type ToolStep = z.infer<typeof stepSchema>;

const usageSchema = z.object({ inputTokens: z.number(), outputTokens: z.number(), modelCalls: z.number() });

/** Token usage summed over a thread's model calls. */
export type Usage = z.infer<typeof usageSchema>;

const errorSchema = z.object({ code: z.string(), message: z.string() });

/** Why an agent stopped without an answer. */
export type AgentStopError = z.infer<typeof errorSchema>;

/**
 * The agent state schema; reuse it (or its fields) in your own StateGraph.
 * `result` holds the final answer, `error` why the agent stopped without one.
 */
export const AgentState = new StateSchema({
  messages: MessagesDeltaValue,
  turns: z.number().default(0),
  usage: new ReducedValue(usageSchema.default({ inputTokens: 0, outputTokens: 0, modelCalls: 0 }), {
    reducer: (a: Usage, b: Usage) => ({
      inputTokens: a.inputTokens + b.inputTokens,
      outputTokens: a.outputTokens + b.outputTokens,
      modelCalls: a.modelCalls + b.modelCalls,
    }),
  }),
  steps: new DeltaValue(z.array(stepSchema).default(() => []), {
    inputSchema: z.array(stepSchema),
    reducer: (current: ToolStep[], writes: ToolStep[][]) => [...current, ...writes.flat()],
  }),
  result: z.string().nullable().default(null),
  error: errorSchema.nullable().default(null),
});

/** The full state type of an agent graph. */
export type AgentStateValue = typeof AgentState.State;

/** A partial update of an agent graph's state. */
export type AgentStateUpdate = typeof AgentState.Update;
