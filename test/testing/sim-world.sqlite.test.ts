// The SimWorld conformance suite on a SQLite file (connections to one file per test).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type SqliteDatabase } from "../../src/db/index.js";
import { SimWorld } from "../../src/testing/sim-world.js";
import { describeSimWorldConformance } from "./conformance/sim-world.js";

describeSimWorldConformance("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agentrt-sim-"));
  const file = join(dir, "world.db");
  const open: SqliteDatabase[] = [];
  return {
    connect: (env = {}) => {
      const db = openDatabase(file);
      open.push(db);
      return SimWorld.open(db, { env });
    },
    close: async () => {
      for (const db of open) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
