/**
 * `agentrt/db` — the SQLite file every store shares, its versioned migrations, and the run lifecycle's tables of
 * statuses and transitions. For tools that read an agentrt file directly or add a module of their own to it.
 * @module
 */
export { openDatabase, migrate, isSqliteDatabase } from "../db/index.js";
export type { SqliteDatabase, RunDatabase, OpenDatabaseOptions, ModuleSchema, Migration } from "../db/index.js";
export { RUN_TRANSITIONS, exhaustedBudget, validateBudget, BUDGET_ERROR_CODES } from "../runs/index.js";
export type { RunRecord, RunEvent, RunOutcome, ExhaustedLimit } from "../runs/index.js";
