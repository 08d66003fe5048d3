// The ThreadStore conformance suite on an in-memory SQLite database.
import { MEMORY_PATH, openDatabase } from "../../src/db/index.js";
import { SqliteThreadStore } from "../../src/server/sqlite-thread-store.js";
import { describeThreadStoreConformance } from "./conformance/thread-store.js";

describeThreadStoreConformance("sqlite", async () => {
  const db = openDatabase(MEMORY_PATH);
  return { store: SqliteThreadStore.open(db), close: async () => void db.close() };
});
