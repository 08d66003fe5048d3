/**
 * What `agentrt world` shows, read from either backend without writing: a database where no simulated system
 * ran (no `sim_*` tables yet) is an empty world, and one whose tables are newer than this agentrt is refused.
 * @module
 */
import { assertSchemaCurrent, readVersion, type SqliteDatabase } from "../db/index.js";
import { assertPostgresSchemaCurrent, PostgresDatabase } from "../db/postgres/index.js";
import { readPostgresSimSnapshot } from "./postgres-sim-storage.js";
import { PG_SIM_SCHEMA } from "./postgres-sim-schema.js";
import { openWorld } from "./sim-open.js";
import { SIM_SCHEMA } from "./sim-schema.js";
import type { SimSnapshot } from "./sim-world.js";

/** The simulated world's calls and state in `db`, creating and migrating nothing. */
export async function readWorldSnapshot(db: SqliteDatabase | PostgresDatabase): Promise<SimSnapshot> {
  if (db instanceof PostgresDatabase) {
    const version = await assertPostgresSchemaCurrent(db, PG_SIM_SCHEMA);
    return version === 0 ? emptyWorld() : readPostgresSimSnapshot(db);
  }
  assertSchemaCurrent(db, SIM_SCHEMA);
  return readVersion(db, SIM_SCHEMA.module) === 0 ? emptyWorld() : openWorld({ db }).snapshot();
}

function emptyWorld(): SimSnapshot {
  return { calls: {}, failures: {}, systems: {} };
}
