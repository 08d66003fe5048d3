// The runs tables on PostgreSQL: migrated once per schema, run_events append-only with increasing ids.
import { describe, expect, it } from "vitest";
import { parseDatabaseTarget, type PostgresTarget } from "../../src/db/database-target.js";
import { migratePostgres, notificationChannel, PostgresDatabase } from "../../src/db/postgres/index.js";
import { RUNS_PG_SCHEMA } from "../../src/runs/postgres-schema.js";
import { TEST_PG_URL, useTestSchema } from "../helpers/postgres.js";
import pg from "pg";

const schema = useTestSchema(import.meta.url);

describe("RUNS_PG_SCHEMA", () => {
  it("migrates to its newest version, once, and keeps run_events append-only with increasing ids", async () => {
    const db = new PostgresDatabase(parseDatabaseTarget(schema.url, {}) as PostgresTarget);
    try {
      expect(await migratePostgres(db, RUNS_PG_SCHEMA)).toBe(4);
      expect(await migratePostgres(db, RUNS_PG_SCHEMA)).toBe(4);
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

  it("V3: a committed run_events row notifies the schema's runs channel with the run's available_at as updated in the same statement; a rolled-back one does not", async () => {
    const db = new PostgresDatabase(parseDatabaseTarget(schema.url, {}) as PostgresTarget);
    const listener = new pg.Client({ connectionString: TEST_PG_URL });
    try {
      await migratePostgres(db, RUNS_PG_SCHEMA);
      await listener.connect();
      const heard: string[] = [];
      listener.on("notification", (message) => heard.push(message.payload ?? ""));
      await listener.query(`LISTEN "${notificationChannel(schema.name, "runs")}"`);
      await db.query(
        `INSERT INTO runs (run_id, thread_id, graph_id, user_id, status, max_attempts, available_at, created_at, updated_at)
         VALUES ('run_n', 'thread_n', 'g', 'u', 'RUNNING', 3, 5, 5, 5)`,
      );
      await expect(db.transaction(async (client) => {
        await client.query("INSERT INTO run_events (run_id, to_status, at) VALUES ('run_n', 'CANCELED', 1)");
        throw new Error("rolled back");
      })).rejects.toThrow("rolled back");
      // The shape every store write has: the runs row changed and its event appended by one statement.
      await db.query(`WITH upd AS (UPDATE runs SET status = 'RETRYING', available_at = 777 WHERE run_id = 'run_n' RETURNING run_id)
        INSERT INTO run_events (run_id, from_status, to_status, at) SELECT run_id, 'RUNNING', 'RETRYING', 2 FROM upd`);
      await db.query("INSERT INTO run_events (run_id, to_status, at) VALUES ('run_n', 'SUCCEEDED', 3)");
      // A round trip on the listening connection after the commits: their notifications came before its answer.
      await listener.query("SELECT 1");
      expect(heard).toEqual(["run_n RETRYING 777", "run_n SUCCEEDED "]);
    } finally {
      await listener.end();
      await db.close();
    }
  });
});
