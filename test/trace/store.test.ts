// SQLite-only behaviour of the trace store; what every backend does is in conformance/trace-store.ts.
import { describe, expect, it } from "vitest";
import { openDatabase, readVersion } from "../../src/db/index.js";
import { openTraceStore } from "../../src/trace/index.js";
import { freshStore, tempDbPath } from "./fixtures/seed.js";

describe("SqliteTraceStore", () => {
  it("creates the spans table through src/db migrations", () => {
    const { db } = freshStore();
    expect(readVersion(db, "trace")).toBe(1);
  });

  it("reads nothing from a database without traces, even read-only", async () => {
    const path = tempDbPath();
    openDatabase(path).close();
    const store = openTraceStore(openDatabase(path, { readonly: true }));
    expect(await store.spans("nope")).toEqual([]);
    expect(await store.hasRun("nope")).toBe(false);
    expect((await store.stats()).runs).toBe(0);
  });

  it("writes a flush before it returns, so a flush inside a caller's transaction commits with it", async () => {
    const path = tempDbPath();
    const db = openDatabase(path);
    const store = openTraceStore(db, { otel: false, flushDelayMs: 60_000 });
    const reader = openDatabase(path, { readonly: true });
    const count = () => (reader.prepare("SELECT COUNT(*) AS n FROM spans").get() as { n: number }).n;
    const rec = await store.recorder("r");
    db.transaction(() => {
      rec.recordToolCall({ tool: "t" });
      void rec.flush();
      expect(count()).toBe(1); // not yet committed: only the root
    })();
    expect(count()).toBe(2);
    const rollBack = db.transaction(() => {
      rec.recordToolCall({ tool: "u" });
      void store.flush();
      throw new Error("rolled back");
    });
    expect(() => rollBack()).toThrow("rolled back");
    expect(count()).toBe(2); // the span went with the transaction
  });
});
