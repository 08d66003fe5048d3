/**
 * A thread whose state cannot be read (its graph left langgraph.json, or an older version stored writes
 * its reducers refuse) is shown as damaged instead of failing the request: a listing of many threads
 * never fails because of one, and the thread itself can still be seen, searched and deleted.
 * @module
 */
import type { CheckpointTuple } from "@langchain/langgraph-checkpoint";
import { StorageError } from "../errors.js";
import type { ThreadStateReader } from "./thread-state.js";
import { toWire } from "../streams/value-wire.js";

/** Why a thread's state could not be read, in the `{ error, message }` shape of a run's `__error__`. */
export interface StateDamage {
  error: "THREAD_STATE_UNREADABLE";
  message: string;
}

/**
 * The damage `error` means for the thread; errors of the database itself (busy, full, corrupt) are rethrown:
 * they are no one thread's fault, and hiding them would show healthy threads as damaged.
 */
export function damageOf(threadId: string, error: unknown): StateDamage {
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof StorageError || (typeof code === "string" && code.startsWith("SQLITE_"))) throw error;
  const reason = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
  return { error: "THREAD_STATE_UNREADABLE", message: `the state of thread ${threadId} cannot be read: ${reason}` };
}

function checkpointOf(config: CheckpointTuple["config"] | undefined): Record<string, unknown> | null {
  const c = config?.configurable;
  if (c?.checkpoint_id === undefined) return null;
  return { thread_id: c.thread_id, checkpoint_ns: c.checkpoint_ns ?? "", checkpoint_id: c.checkpoint_id, checkpoint_map: null };
}

/**
 * The state answer of a damaged thread: its values replaced by `{ __error__: damage }`, no tasks, and the
 * checkpoint's id and metadata as stored (so a client can still tell where the thread stands).
 */
export async function damagedState(states: ThreadStateReader, threadId: string, damage: StateDamage, checkpointId?: string): Promise<Record<string, unknown>> {
  const tuple = await states.storedCheckpoint(threadId, checkpointId);
  return {
    values: { __error__: damage },
    next: [],
    tasks: [],
    checkpoint: checkpointOf(tuple?.config),
    metadata: toWire(tuple?.metadata ?? {}),
    created_at: tuple?.checkpoint.ts ?? null,
    parent_checkpoint: checkpointOf(tuple?.parentConfig),
    interrupts: [],
    error: damage,
  };
}
