// The ThreadStore conformance suite on PostgreSQL, a fresh schema per test.
import { parseDatabaseTarget, type PostgresTarget } from "../../src/db/database-target.js";
import { PostgresDatabase } from "../../src/db/postgres/index.js";
import { PostgresThreadStore } from "../../src/server/postgres-thread-store.js";
import { useTestSchema } from "../helpers/postgres.js";
import { describeThreadStoreConformance } from "./conformance/thread-store.js";

const schema = useTestSchema(import.meta.url);

describeThreadStoreConformance("postgres", async () => {
  const db = new PostgresDatabase(parseDatabaseTarget(schema.fresh("t").url, {}) as PostgresTarget, { maxConnections: 6 });
  return { store: await PostgresThreadStore.open(db), close: () => db.close() };
});
