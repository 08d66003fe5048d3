/**
 * A runtime's stores in one SQLite file, on one connection: the checkpoint, the run's fence and its usage commit
 * in one synchronous transaction, and each module migrates when opened.
 * @module
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { SqliteSaver } from "../../../checkpointers/index.js";
import { openDatabase, type SqliteDatabase } from "../../db/index.js";
import { SystemError } from "../../errors.js";
import { ledgerFor } from "../../ledger/index.js";
import { SqliteStore } from "../../memory/sqlite-store.js";
import { SqliteRunStore } from "../../runs/index.js";
import { openTraceStore } from "../../trace/index.js";
import type { CheckpointFence, RuntimeStorage } from "./runtime-storage.js";

/** Opens (creating and migrating) the SQLite file at `path`; `mustExist` refuses a missing file. */
export function openSqliteStorage(path: string, options: { mustExist?: boolean } = {}): RuntimeStorage {
  const db = openDatabase(path, { mustExist: options.mustExist });
  try {
    return sqliteStorage(db);
  } catch (error) {
    db.close();
    throw error;
  }
}

function sqliteStorage(db: SqliteDatabase): RuntimeStorage {
  const runs = SqliteRunStore.open(db);
  const trace = openTraceStore(db);
  const ledger = ledgerFor(db);
  const store = new SqliteStore(db);
  // Each saver keeps read caches (a long thread's decoded history): closing the storage closes them, so those go too.
  const savers: SqliteSaver[] = [];
  // No sharedLimits: tools' declared limits and breakers stay each process's (resilient-executor.ts). A SQLite file
  // is usually one process; holding them in the file would make every limited call take the file's single write
  // lock (beside the checkpoint writes it would slow) and leave waiters polling, with no NOTIFY to wake them. So
  // N workers on one file each allow a tool its full rate; limits that hold across processes need PostgreSQL.
  return {
    backend: "sqlite", db, runs, trace, ledger, store,
    checkpointer: (fence?: CheckpointFence) => {
      const saver = new SqliteSaver(db, undefined, fence === undefined ? {} : { beforeWrite: sqliteCheckpointHook(fence, db) });
      savers.push(saver);
      return saver;
    },
    ready: async () => undefined,
    close: async () => {
      // Written before it returns on SQLite, so the file is closed with every span in it.
      void trace.flush();
      try {
        for (const saver of savers) saver.close();
      } finally {
        if (db.open) db.close();
      }
    },
  };
}

/** `fence` as the SqliteSaver's `beforeWrite` on `db`: synchronous, since its transaction cannot span an await. */
export function sqliteCheckpointHook(fence: CheckpointFence, db: SqliteDatabase): (config: RunnableConfig) => void | (() => void) {
  return (config) => {
    const fenced = fence({ backend: "sqlite", db }, config);
    if (fenced instanceof Promise) throw new SystemError("INTERNAL", "a SQLite checkpoint's fence must not await");
    return fenced;
  };
}
