// The run store's conformance suite on SQLite: two connections to one file, as two processes would have.
import { openDatabase } from "../../src/db/index.js";
import { SqliteRunStore } from "../../src/runs/index.js";
import { describeRunStoreConformance } from "./conformance/run-store.js";
import { fakeClock, tempDbPath } from "./helpers.js";

describeRunStoreConformance("SQLite", async () => {
  const path = tempDbPath();
  const clock = fakeClock();
  const db = openDatabase(path);
  const otherDb = openDatabase(path);
  return {
    store: SqliteRunStore.open(db, { clock }),
    other: SqliteRunStore.open(otherDb, { clock }),
    clock,
    close: async () => {
      otherDb.close();
      db.close();
    },
  };
});
