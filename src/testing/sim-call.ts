/**
 * The bridge from a tool's `execute` to the simulated world.
 * @module
 */
import type { ToolContext } from "../tools/define-tool.js";
import { openWorld } from "./sim-open.js";
import type { SimEffectContext, SimSystem } from "./sim-world.js";

/** Which system and tool a simulated call belongs to. */
export interface SimToolCall {
  system: SimSystem;
  /** The tool's name; calls and faults are counted under it. */
  tool: string;
  /** Whether the call changes the system (then it is deduped on the idempotency key). */
  sideEffect: boolean;
}

/** The parts of {@link ToolContext} a simulated call uses. */
export type SimToolContext = Pick<ToolContext, "db" | "idempotencyKey" | "signal" | "setExternalOperationId">;

/**
 * Performs a tool call against the simulated world of `ctx.db` (or of
 * `AGENTRT_DB` under a foreign host) and reports the external operation id.
 * @example
 * execute: (args, ctx) => callSim(ctx, { system: deploy, tool: "rollback_deployment", sideEffect: true },
 *   ({ state, operationId }) => rollback(state, args.service, operationId))
 */
export async function callSim<Result>(
  ctx: SimToolContext,
  call: SimToolCall,
  effect: (sim: SimEffectContext) => Result,
): Promise<Result> {
  const world = openWorld({ db: ctx.db });
  const outcome = await world.perform(
    { ...call, idempotencyKey: ctx.idempotencyKey, signal: ctx.signal },
    effect,
  );
  if (outcome.operationId !== undefined) ctx.setExternalOperationId(outcome.operationId);
  return outcome.result;
}
