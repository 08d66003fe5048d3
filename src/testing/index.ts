/**
 * `agentrt/testing`: the deterministic fakes users need to test agents offline.
 * @module
 */
export { ScriptedChatModel, estimateTokens } from "../models/scripted-model.js";
export type {
  ChatScript, ScriptedCallRecord, ScriptedChatModelOptions, ScriptedReply, ScriptedToolCall, ScriptInput,
} from "../models/scripted-model.js";
export { SimWorld } from "./sim-world.js";
export type { SimSystem, SimCall, SimCallResult, SimEffectContext, SimSnapshot, SimWorldOptions } from "./sim-world.js";
export type { SimState } from "./sim-state.js";
export { SimulatedFaultError } from "./sim-fault.js";
export { openWorld, closeWorlds } from "./sim-open.js";
export type { OpenWorldOptions } from "./sim-open.js";
export { callSim } from "./sim-call.js";
export type { SimToolCall, SimToolContext } from "./sim-call.js";
export { simLatencyMs, simFaults } from "./sim-env.js";
