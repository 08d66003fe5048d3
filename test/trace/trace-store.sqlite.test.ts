import { describe, expect, it, vi } from "vitest";
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

describe("SQLite trace store: a recorder's init", () => {
  it("commits a new root and the spans init marks in one transaction (a claim's start: one commit, not two)", async () => {
    const db = openDatabase(tempDbPath());
    try {
      const store = openTraceStore(db, { otel: false });
      // Commits: each COMMIT, and each write run outside a transaction (it commits on its own).
      const commits: string[] = [];
      const prepare = db.prepare.bind(db);
      vi.spyOn(db, "prepare").mockImplementation(((sql: string) => {
        const st = prepare(sql);
        const run = st.run.bind(st);
        st.run = ((...args: unknown[]) => {
          if (sql === "COMMIT" || (!db.inTransaction && !sql.startsWith("BEGIN"))) commits.push(sql);
          return run(...(args as []));
        });
        return st;
      }));
      const rec = await store.recorder("one", { init: (r) => r.recordStateChange("QUEUED", "RUNNING", { at: Date.now() }) });
      await rec.flush();
      expect(commits).toEqual(["COMMIT"]);
      expect((await store.spans("one")).map((s) => s.kind).sort()).toEqual(["invoke_agent", "state_change"]);
    } finally {
      vi.restoreAllMocks();
      db.close();
    }
  });
});
