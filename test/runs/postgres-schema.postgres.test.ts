// The runs tables on PostgreSQL: migrated once per schema, run_events append-only with increasing ids.
import { describe, expect, it } from "vitest";
import { parseDatabaseTarget, type PostgresTarget } from "../../src/db/database-target.js";
import { migratePostgres, PostgresDatabase } from "../../src/db/postgres/index.js";
import { RUNS_PG_SCHEMA } from "../../src/runs/postgres-schema.js";
import { useTestSchema } from "../helpers/postgres.js";

const schema = useTestSchema(import.meta.url);

describe("RUNS_PG_SCHEMA", () => {
  it("migrates to its newest version, once, and keeps run_events append-only with increasing ids", async () => {
    const db = new PostgresDatabase(parseDatabaseTarget(schema.url, {}) as PostgresTarget);
    try {
      expect(await migratePostgres(db, RUNS_PG_SCHEMA)).toBe(2);
      expect(await migratePostgres(db, RUNS_PG_SCHEMA)).toBe(2);
      await db.query(
        `INSERT INTO runs (run_id, thread_id, graph_id, user_id, status, max_attempts, available_at, created_at, updated_at)
         VALUES ('run_1', 'thread_1', 'g', 'u', 'QUEUED', 3, $1, $1, $1)`,
        [1_700_000_000_000],
      );
      const ids: string[] = [];
      for (const to of ["QUEUED", "RUNNING"]) {
        const { rows } = await db.query<{ event_id: string }>("INSERT INTO run_events (run_id, to_status, at) VALUES ('run_1', $1, 1) RETURNING event_id", [to]);
        ids.push(rows[0]!.event_id);
      }
      expect(BigInt(ids[1]!)).toBeGreaterThan(BigInt(ids[0]!));
      await expect(db.query("UPDATE run_events SET reason = 'x'")).rejects.toThrow(/append-only/);
      await expect(db.query("DELETE FROM run_events")).rejects.toThrow(/append-only/);
      await expect(db.query("UPDATE runs SET status = 'DONE'")).rejects.toThrow(/check/i);
    } finally {
      await db.close();
    }
  });
});
