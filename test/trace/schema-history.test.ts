import { copyFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { openDatabase, readVersion } from "../../src/db/index.js";
import { TRACE_SCHEMA, openTraceStore, renderTraceTree } from "../../src/trace/index.js";
import { freshStore, seedOpsRollback, tempDbPath } from "./fixtures/seed.js";

// Written by trace schema v1 (seedOpsRollback); never regenerate it, add a new file per version.
const V1 = fileURLToPath(new URL("./fixtures/trace-v1.db", import.meta.url));

describe("trace schema history", () => {
  it("the current schema is v1", async () => {
    expect(TRACE_SCHEMA.migrations).toHaveLength(1);
  });

  it("reads a v1 file read-only, exactly as a fresh one renders", async () => {
    const db = openDatabase(V1, { readonly: true });
    expect(readVersion(db, "trace")).toBe(1);
    const { store: fresh } = freshStore();
    await seedOpsRollback(fresh);
    const old = await openTraceStore(db).spans("run_01");
    expect(renderTraceTree(old, { width: 120 })).toBe(renderTraceTree(await fresh.spans("run_01"), { width: 120 }));
    expect((await openTraceStore(db).stats()).runs).toBe(1);
    db.close();
  });

  it("opens a copy of a v1 file read-write and continues its runs", async () => {
    const path = tempDbPath();
    copyFileSync(V1, path);
    const store = openTraceStore(openDatabase(path), { otel: false });
    const rec = await store.recorder("run_01");
    expect(rec.resumed).toBe(true);
    rec.recordToolCall({ tool: "verify_deployment" });
    expect((await store.spans("run_01")).filter((s) => s.kind === "invoke_agent")).toHaveLength(1);
    expect((await store.spans("run_01")).some((s) => s.tool === "verify_deployment")).toBe(true);
  });
});
