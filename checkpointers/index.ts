/**
 * Checkpoint savers for LangGraph, importable as `agentrt/checkpointers`.
 * @module
 */
export { SqliteSaver } from "./sqlite/saver.js";
export type { SqliteSaverOptions, SqliteSaverBehaviour, SqliteDurability, PruneOptions } from "./sqlite/options.js";
export { PostgresSaver } from "./postgres/saver.js";
export type { PostgresSaverOptions, PostgresSaverBehaviour, PostgresBeforeWrite } from "./postgres/options.js";
