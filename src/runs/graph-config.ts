/**
 * What a run's graph is invoked with besides the run's own ids: extra
 * `configurable` keys (an assistant's configuration, a model name) and
 * LangGraph's recursion limit. Checked at submit, so a bad one is refused
 * before anything is stored.
 * @module
 */
import { UserInputError } from "../errors.js";

/** The `configurable` key carrying the fencing token of the execution that writes (checked by every checkpoint write). */
export const FENCING_TOKEN_KEY = "fencing_token";

/** A run's graph configuration, stored with the run and applied at every (re)start of it. */
export interface RunGraphConfig {
  /** Merged under the run's own keys into `config.configurable`. */
  configurable?: Record<string, unknown>;
  /** LangGraph's `recursionLimit`: supersteps per invocation. @default 100 */
  recursionLimit?: number;
  /**
   * Set by the server for a run created by its streaming endpoint on PostgreSQL: whoever executes the run publishes
   * its chunks (with these modes) to the shared chunk log from the first one. Never taken from a caller.
   */
  stream?: { modes: string[] };
  /**
   * Set by the server for a run from an earlier checkpoint of its thread (a fork): the run's input is applied at
   * this checkpoint, a new branch, as LangGraph's server runs it — no copy of it is written first. Used only while
   * the run's input is still due; once the run has written a checkpoint it continues from its own. Never taken from a caller.
   */
  fromCheckpoint?: string;
}

/** LangGraph's default is 25; agentrt's agents take a model turn and a tool step per round. */
export const DEFAULT_RECURSION_LIMIT = 100;
const MAX_RECURSION_LIMIT = 10_000;

/**
 * Keys a caller may not set: the run's identity and the user's roles come from the run itself (setting
 * them would act as someone else or redo done side effects), and the checkpoint keys would move the run
 * to another thread or checkpoint.
 */
const RESERVED = new Set([
  "thread_id", "run_id", "user", "roles", "action_version", FENCING_TOKEN_KEY,
  // thread_ts is LangGraph's older name for checkpoint_id: it would restart the thread from an old checkpoint.
  "checkpoint_id", "thread_ts", "checkpoint_ns", "checkpoint_map",
]);

/** The config as given, or BAD_INPUT naming what is wrong; undefined when there is nothing to store. */
export function validateGraphConfig(config: RunGraphConfig | undefined): RunGraphConfig | undefined {
  if (config === undefined) return undefined;
  const { configurable, recursionLimit, stream, fromCheckpoint } = config;
  if (fromCheckpoint !== undefined && (typeof fromCheckpoint !== "string" || fromCheckpoint === "")) {
    throw new UserInputError("BAD_INPUT", "fromCheckpoint must be a checkpoint id");
  }
  if (stream !== undefined && !(Array.isArray(stream.modes) && stream.modes.every((m) => typeof m === "string"))) {
    throw new UserInputError("BAD_INPUT", "stream.modes must be a list of stream mode names");
  }
  if (recursionLimit !== undefined && !(Number.isInteger(recursionLimit) && recursionLimit >= 1 && recursionLimit <= MAX_RECURSION_LIMIT)) {
    throw new UserInputError("BAD_INPUT", `recursion limit must be an integer in 1..${MAX_RECURSION_LIMIT}, got ${String(recursionLimit)}`);
  }
  if (configurable !== undefined) {
    if (typeof configurable !== "object" || configurable === null || Array.isArray(configurable)) {
      throw new UserInputError("BAD_INPUT", "configurable must be an object");
    }
    for (const key of Object.keys(configurable)) {
      if (RESERVED.has(key) || key.startsWith("__")) {
        throw new UserInputError("BAD_INPUT", `configurable.${key} is set by agentrt from the run (its thread, user and lease), not by the caller`);
      }
    }
  }
  const hasKeys = configurable !== undefined && Object.keys(configurable).length > 0;
  if (!hasKeys && recursionLimit === undefined && stream === undefined && fromCheckpoint === undefined) return undefined;
  return {
    ...(hasKeys ? { configurable } : {}), ...(recursionLimit === undefined ? {} : { recursionLimit }),
    ...(stream === undefined ? {} : { stream: { modes: [...stream.modes] } }),
    ...(fromCheckpoint === undefined ? {} : { fromCheckpoint }),
  };
}
