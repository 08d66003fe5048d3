// The run store's conformance suite on SQLite: two connections to one file, as two processes would have.
import { openDatabase } from "../../src/db/index.js";
import { SqliteRunStore } from "../../src/runs/index.js";
import { describeRunStoreConformance } from "./conformance/run-store.js";
import { fakeClock, tempDbPath } from "./helpers.js";

const ROLLBACK = new Error("roll back");

describeRunStoreConformance("SQLite", async () => {
  const path = tempDbPath();
  const clock = fakeClock();
  const db = openDatabase(path);
  const otherDb = openDatabase(path);
  return {
    store: SqliteRunStore.open(db, { clock }),
    other: SqliteRunStore.open(otherDb, { clock }),
    clock,
    async transaction(work, options = {}) {
      // SQLite's fence runs synchronously inside the caller's write transaction.
      const write = db.transaction(() => {
        const result = work({ backend: "sqlite", db });
        if (result instanceof Promise) throw new Error("a SQLite transaction cannot await");
        if (options.rollback === true) throw ROLLBACK;
      });
      try {
        write.immediate();
      } catch (error) {
        if (error !== ROLLBACK) throw error;
      }
    },
    foreignTransaction: { backend: "postgres", client: { query: () => Promise.reject(new Error("not a PostgreSQL server")) } },
    close: async () => {
      otherDb.close();
      db.close();
    },
  };
});
