/**
 * Checkpoint savers for LangGraph, importable as `agentrt/checkpointers`.
 * @module
 */
export {};
