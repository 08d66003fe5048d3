import { parseDatabaseTarget } from "../../src/db/database-target.js";
import { PostgresDatabase } from "../../src/db/postgres/index.js";
import { openPostgresTraceStore } from "../../src/trace/postgres-store.js";
import { useTestSchema } from "../helpers/postgres.js";
import { describeTraceStoreConformance } from "./conformance/trace-store.js";

const schema = useTestSchema(import.meta.url);

describeTraceStoreConformance("PostgreSQL", async (options) => {
  const url = schema.fresh("c").url;
  const open = () => {
    const target = parseDatabaseTarget(url);
    if (target.kind !== "postgres") throw new Error(`not a PostgreSQL target: ${url}`);
    return new PostgresDatabase(target);
  };
  const dbs = [open()];
  return {
    store: await openPostgresTraceStore(dbs[0]!, options),
    // Another pool on the schema, as another process has.
    another: async (more) => {
      const db = open();
      dbs.push(db);
      return openPostgresTraceStore(db, { ...options, ...more });
    },
    close: async () => {
      for (const db of dbs) await db.close();
    },
  };
});
