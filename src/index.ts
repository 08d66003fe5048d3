/**
 * agentrt — an agent runtime on LangGraph.js. The public API lives here;
 * everything not re-exported from this file is internal.
 * @module
 */
export {
  AgentrtError,
  UserInputError,
  StorageError,
  ModelBehaviorError,
  ToolError,
  SystemError,
  isUserInputError,
} from "./errors.js";
export type { AgentrtErrorCode, AgentrtErrorOptions } from "./errors.js";
export { openDatabase, migrate } from "./db/index.js";
export type { SqliteDatabase, OpenDatabaseOptions, ModuleSchema, Migration } from "./db/index.js";
export { packageVersion } from "./version.js";
