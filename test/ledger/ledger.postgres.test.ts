// The ledger conformance suite on PostgreSQL (the machine's server, a schema per test), and what only
// PostgreSQL has: an async guard on the begin's own transaction client, and its schema version.
import { describe, expect, it } from "vitest";
import { parseDatabaseTarget, type PostgresTarget } from "../../src/db/database-target.js";
import { PostgresDatabase } from "../../src/db/postgres/index.js";
import type { LedgerTransaction } from "../../src/ledger/ledger.js";
import { PostgresToolLedger } from "../../src/ledger/postgres-ledger.js";
import { useTestSchema } from "../helpers/postgres.js";
import { describeLedgerConformance } from "./conformance/ledger.js";

const schema = useTestSchema(import.meta.url);

function database(url: string): PostgresDatabase {
  return new PostgresDatabase(parseDatabaseTarget(url) as PostgresTarget);
}

describeLedgerConformance("PostgreSQL", async () => {
  const { url } = schema.fresh("c");
  const dbs = [database(url)];
  const ledger = await PostgresToolLedger.open(dbs[0]!);
  return {
    ledger,
    async another() {
      const db = database(url);
      dbs.push(db);
      return PostgresToolLedger.open(db);
    },
    async close() {
      await Promise.all(dbs.map((db) => db.close()));
    },
  };
});

const call = { runId: "run_1", toolCallId: "call_1", tool: "send_message", argsHash: "sha256:a", idempotent: false };

describe("PostgresToolLedger", () => {
  it("runs an async guard on the begin's transaction client: its queries commit, or roll back, with the intent", async () => {
    const db = database(schema.fresh("g").url);
    try {
      const ledger = await PostgresToolLedger.open(db);
      await db.query("CREATE TABLE fence (run_id TEXT PRIMARY KEY, token INTEGER NOT NULL)");
      await db.query("INSERT INTO fence VALUES ('run_1', 1)");
      // The runtime's future fence: the run's token, read (and locked) in the same transaction as the intent.
      const fenced = (token: number) => async (tx: LedgerTransaction) => {
        if (tx.backend !== "postgres") throw new Error("expected the postgres transaction");
        const { rows } = await tx.client.query<{ token: number }>("SELECT token FROM fence WHERE run_id = 'run_1' FOR UPDATE");
        if (rows[0]?.token !== token) throw new Error("lease lost");
        await tx.client.query("UPDATE fence SET token = token WHERE run_id = 'run_1'");
      };
      let guardXact: string | undefined;
      const xact = await ledger.begin({ ...call, guard: async (tx) => {
        await fenced(1)(tx);
        if (tx.backend === "postgres") {
          const { rows } = await tx.client.query<{ id: string }>("SELECT pg_current_xact_id()::text AS id");
          guardXact = rows[0]?.id;
        }
      } });
      expect(xact.kind).toBe("new");
      const { rows } = await db.query<{ xmin: string }>("SELECT xmin::text AS xmin FROM tool_ledger WHERE idempotency_key = $1", [xact.key]);
      expect(rows[0]?.xmin).toBe(guardXact);

      await expect(ledger.begin({ ...call, toolCallId: "call_2", guard: fenced(2) })).rejects.toThrow("lease lost");
      await expect(ledger.begin({ ...call, toolCallId: "call_3", guard: () => Promise.reject(new Error("refused late")) })).rejects.toThrow("refused late");
      expect((await ledger.list("run_1")).map((e) => e.toolCallId)).toEqual(["call_1"]);
    } finally {
      await db.close();
    }
  });

  it("refuses a schema whose ledger version is newer", async () => {
    const db = database(schema.fresh("v").url);
    try {
      await PostgresToolLedger.open(db);
      await db.query("UPDATE agentrt_schema SET version = 42 WHERE module = 'ledger'");
      await expect(PostgresToolLedger.open(db)).rejects.toMatchObject({ code: "DB_SCHEMA_TOO_NEW" });
    } finally {
      await db.close();
    }
  });
});
