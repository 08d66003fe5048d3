/**
 * A runtime's stores in one PostgreSQL schema, on one pool: each module's tables are created or migrated by
 * {@link RuntimeStorage.ready} (or on first use), and a checkpoint's fence and usage run on the checkpoint
 * transaction's own client, so they commit or roll back with it.
 * @module
 */
import { PostgresSaver } from "../../../checkpointers/index.js";
import type { PostgresTarget } from "../../db/index.js";
import { PostgresDatabase } from "../../db/postgres/index.js";
import { PostgresToolLedger } from "../../ledger/postgres-ledger.js";
import { PostgresStore } from "../../memory/postgres-store.js";
import { PostgresLimitStore } from "../../resilience/postgres-limits.js";
import { SharedToolLimits } from "../../resilience/shared-tool-limits.js";
import { PostgresRunSignals, PostgresRunStore, PostgresWorkerLiveness } from "../../runs/index.js";
import { PostgresChunkLog } from "../../streams/postgres-chunk-log.js";
import { PostgresTraceStore } from "../../trace/index.js";
import type { CheckpointFence, RuntimeStorage } from "./runtime-storage.js";

/** Opens a pool on the target's schema; nothing is sent to the server until {@link RuntimeStorage.ready} or first use. */
export function openPostgresStorage(target: PostgresTarget): RuntimeStorage {
  const db = new PostgresDatabase(target);
  const runs = PostgresRunStore.open(db);
  const trace = new PostgresTraceStore(db);
  const ledger = new PostgresToolLedger(db);
  const store = new PostgresStore(db);
  const limitStore = new PostgresLimitStore(db);
  const chunks = new PostgresChunkLog(db);
  const signals = new PostgresRunSignals(db);
  const liveness = new PostgresWorkerLiveness(db, runs);
  const checkpointer = (fence?: CheckpointFence) =>
    new PostgresSaver(db, undefined, fence === undefined ? {} : { beforeWrite: (client, config) => fence({ backend: "postgres", client, withWrite: true }, config) });
  let ready: Promise<void> | undefined;
  return {
    backend: "postgres", db, runs, trace, ledger, store, chunks, signals, liveness, checkpointer, sharedLimits: new SharedToolLimits(limitStore),
    ready: () => (ready ??= (async () => {
      await db.ready();
      // One module after another: each migration takes the schema's advisory lock anyway.
      await runs.ready();
      await ledger.setup();
      await trace.setup();
      await store.setup();
      await limitStore.setup();
      await checkpointer().setup();
      await chunks.setup();
    })().catch((error: unknown) => {
      ready = undefined;
      throw error;
    })),
    close: async () => {
      try {
        await trace.flush();
      } finally {
        await db.close();
      }
    },
  };
}
