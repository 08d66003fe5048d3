/**
 * Everything a {@link Runtime} stores, on one backend: runs, checkpoints, the ledger, spans and memory, each behind
 * its module's interface. `openRuntimeStorage` picks SQLite for a file path and PostgreSQL for a `postgres://` URL;
 * the runtime above it does not know which.
 * @module
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { RunDatabase, StoreTransaction } from "../../db/index.js";
import type { ToolLedger } from "../../ledger/index.js";
import type { MemoryStore } from "../../memory/memory-store.js";
import type { SharedToolLimits } from "../../resilience/index.js";
import type { RunSignals, RunStore, WorkerLiveness } from "../../runs/index.js";
import type { ChunkLog } from "../../streams/chunk-log.js";
import type { TraceStore } from "../../trace/index.js";

/**
 * Runs inside each checkpoint write's transaction: throw (or reject) to refuse it; return a function to be called
 * if the transaction then fails. Synchronous on SQLite.
 */
export type CheckpointFence = (tx: StoreTransaction, config: RunnableConfig) => void | FenceUndo | Promise<void | FenceUndo>;

/** Called when a fenced write then fails, with its error. */
export type FenceUndo = (error?: unknown) => void;

/** A checkpointer that can also copy a thread (SQLite synchronously, inside a caller's transaction). */
export type ThreadCopyingSaver = BaseCheckpointSaver & { copyThread(from: string, to: string): void | Promise<void> };

/** The stores of one runtime, all on one database. */
export interface RuntimeStorage {
  readonly backend: "sqlite" | "postgres";
  /** The database tools receive as `ctx.db` (the simulated world follows it). */
  readonly db: RunDatabase;
  readonly runs: RunStore;
  readonly trace: TraceStore;
  readonly ledger: ToolLedger;
  readonly store: MemoryStore;
  /** Declared tool limits and breakers held across processes (PostgreSQL); undefined where they are each process's. */
  readonly sharedLimits?: SharedToolLimits;
  /** Word of status changes committed by any process on this database (PostgreSQL); undefined where none crosses processes. */
  readonly signals?: RunSignals;
  /** Liveness the database ends with a worker's process (PostgreSQL), so a killed worker's runs are taken over at once. */
  readonly liveness?: WorkerLiveness;
  /** The stream chunks of watched runs, shared by every process on this database (PostgreSQL); undefined on SQLite. */
  readonly chunks?: ChunkLog;
  /** A checkpointer on this database; with `fence`, each write runs it inside its own transaction. */
  checkpointer(fence?: CheckpointFence): ThreadCopyingSaver;
  /** Creates or migrates every module's tables now (else on first use), so a bad database fails at once. */
  ready(): Promise<void>;
  /** Flushes the trace and closes the database. */
  close(): Promise<void>;
}
