import { openDatabase, type SqliteDatabase } from "../../src/db/index.js";
import { openTraceStore } from "../../src/trace/index.js";
import { describeTraceStoreConformance } from "./conformance/trace-store.js";
import { tempDbPath } from "./fixtures/seed.js";

describeTraceStoreConformance("SQLite", async (options) => {
  const path = tempDbPath();
  const dbs: SqliteDatabase[] = [openDatabase(path)];
  return {
    store: openTraceStore(dbs[0]!, options),
    // Another connection to the file, as another process has.
    another: async (more) => {
      const db = openDatabase(path);
      dbs.push(db);
      return openTraceStore(db, { ...options, ...more });
    },
    close: async () => {
      for (const db of dbs) db.close();
    },
  };
});
