// The SimWorld conformance suite on PostgreSQL: each test gets a fresh schema; each connection is its own pool.
import { parseDatabaseTarget, type PostgresTarget } from "../../src/db/database-target.js";
import { PostgresDatabase } from "../../src/db/postgres/index.js";
import { SimWorld } from "../../src/testing/sim-world.js";
import { useTestSchema } from "../helpers/postgres.js";
import { describeSimWorldConformance } from "./conformance/sim-world.js";

const schema = useTestSchema(import.meta.url);

describeSimWorldConformance("postgres", async () => {
  const target = parseDatabaseTarget(schema.fresh("w").url, {}) as PostgresTarget;
  const open: PostgresDatabase[] = [];
  return {
    connect: (env = {}) => {
      const db = new PostgresDatabase(target, { maxConnections: 4 });
      open.push(db);
      return SimWorld.open(db, { env });
    },
    close: async () => {
      for (const db of open) await db.close();
    },
  };
});
