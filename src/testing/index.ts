/**
 * `agentrt/testing`: the deterministic fakes users need to test agents offline.
 * @module
 */
export { ScriptedChatModel, estimateTokens } from "../models/scripted-model.js";
export type {
  ChatScript, ScriptedCallRecord, ScriptedChatModelOptions, ScriptedReply, ScriptedToolCall, ScriptInput,
} from "../models/scripted-model.js";
