/**
 * Migrations are frozen: applying today's migrations 1..n to an empty file gives exactly the tables,
 * indexes and triggers that the agentrt of schema version n wrote (the historical fixtures). A migration
 * edited in place, or built from a constant that has since changed, fails here.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CHECKPOINT_SCHEMA } from "../../checkpointers/sqlite/schema.js";
import { openDatabase, readVersion, type ModuleSchema, type SqliteDatabase } from "../../src/db/index.js";
import { memorySchema } from "../../src/memory/schema.js";
import { RUN_STATUSES } from "../../src/runs/lifecycle.js";
import { RUNS_SCHEMA } from "../../src/runs/schema.js";
import { SERVER_SCHEMA } from "../../src/server/sqlite-thread-store.js";
import { SIM_SCHEMA } from "../../src/testing/sim-schema.js";
import { LEDGER_SCHEMA } from "../../src/ledger/schema.js";
import { TRACE_SCHEMA } from "../../src/trace/schema.js";

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/historical/${name}`, import.meta.url));

/** The CREATE statements of the module's tables and everything on them, by name. */
function objectsOf(db: SqliteDatabase, schema: ModuleSchema): Record<string, string> {
  const tables = JSON.stringify(schema.tables);
  const rows = db
    .prepare("SELECT name, sql FROM sqlite_master WHERE tbl_name IN (SELECT value FROM json_each(?)) AND sql IS NOT NULL ORDER BY name")
    .all(tables) as { name: string; sql: string }[];
  return Object.fromEntries(rows.map((r) => [r.name, r.sql]));
}

/** Today's migrations 1..version applied to an empty in-memory file. */
function migratedTo(schema: ModuleSchema, version: number): Record<string, string> {
  const db = openDatabase(":memory:");
  for (const step of schema.migrations.slice(0, version)) {
    if (typeof step === "string") db.exec(step);
    else step(db);
  }
  const objects = objectsOf(db, schema);
  db.close();
  return objects;
}

const cases: { file: string; schema: ModuleSchema }[] = [
  { file: "runs-ledger-v1.sqlite", schema: RUNS_SCHEMA },
  { file: "runs-ledger-v1.sqlite", schema: LEDGER_SCHEMA },
  { file: "runs-v1-paused.sqlite", schema: RUNS_SCHEMA },
  { file: "runs-v2-paused.sqlite", schema: RUNS_SCHEMA },
  { file: "runs-v3-paused.sqlite", schema: RUNS_SCHEMA },
  { file: "runs-v3-docs-v1-paused.sqlite", schema: RUNS_SCHEMA },
  { file: "runs-v3-docs-v1-paused.sqlite", schema: CHECKPOINT_SCHEMA },
  { file: "runs-v1-paused.sqlite", schema: TRACE_SCHEMA },
  { file: "runs-v1-paused.sqlite", schema: CHECKPOINT_SCHEMA },
  { file: "runs-v1-paused.sqlite", schema: SIM_SCHEMA },
  { file: "memory-v1.sqlite", schema: memorySchema },
  { file: "server-v1.sqlite", schema: SERVER_SCHEMA },
];

describe("frozen migrations", () => {
  it.each(cases)("$schema.module as in $file", ({ file, schema }) => {
    const db = openDatabase(fixture(file), { readonly: true });
    const version = readVersion(db, schema.module);
    expect(version).toBeGreaterThan(0);
    const written = objectsOf(db, schema);
    db.close();
    expect(migratedTo(schema, version)).toEqual(written);
  });
});

describe("the runs table's frozen status CHECK", () => {
  it("accepts every status today's lifecycle knows (a new status needs a migration of its own)", () => {
    const db = openDatabase(":memory:");
    for (const step of RUNS_SCHEMA.migrations) if (typeof step === "string") db.exec(step);
    const insert = db.prepare(
      "INSERT INTO runs (run_id, thread_id, graph_id, user_id, status, max_attempts, available_at, created_at, updated_at) VALUES (?, 't', 'g', 'u', ?, 1, 0, 0, 0)",
    );
    for (const status of RUN_STATUSES) expect(() => insert.run(`run_${status}`, status)).not.toThrow();
    db.close();
  });
});
