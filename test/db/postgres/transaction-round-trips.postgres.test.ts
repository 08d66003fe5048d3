// A transaction's BEGIN rides with its first statement and COMMIT with its `last` one, their values written in as
// literals: the values stored must be exactly those the same statements store with parameters.
import { describe, expect, it } from "vitest";
import { parseDatabaseTarget, type PostgresTarget } from "../../../src/db/database-target.js";
import { PostgresDatabase } from "../../../src/db/postgres/index.js";
import { inlineParams } from "../../../src/db/postgres/inline-params.js";
import { useTestSchema, statementsSent } from "../../helpers/postgres.js";

const schema = useTestSchema(import.meta.url);

const INSERT = "INSERT INTO t (k, s, n, f, b, arr, blobs, j, flag) VALUES ($1, $2, $3::bigint, $4::float8, $5, $6::text[], $7::bytea[], $8::jsonb, $9)";
const awkward = ["it's", "back\\slash", 'dou"ble', "$1 not a param", "ünï 😀", "", "new\nline", "NULL"];
const row = (k: string) => [k, awkward.join("|"), 2 ** 53 - 1, 0.1, Buffer.from([0, 1, 92, 39, 255]), [...awkward, null], [Buffer.from([0, 92]), Buffer.alloc(0)], { a: "it's \\ \"q\"" }, true];

describe("PostgresDatabase.transaction", () => {
  it("stores the same values with BEGIN and COMMIT merged as with parameters, in two round trips", async () => {
    const db = new PostgresDatabase(parseDatabaseTarget(schema.url) as PostgresTarget);
    try {
      await db.query("CREATE TABLE t (k TEXT PRIMARY KEY, s TEXT, n BIGINT, f FLOAT8, b BYTEA, arr TEXT[], blobs BYTEA[], j JSONB, flag BOOLEAN)");
      await db.query(INSERT, row("param"));
      const { sent, result: answered } = await statementsSent(() =>
        db.transaction(async (client) => (await client.query<{ s: string }>("SELECT $1::text AS s", ["it's"])).rows[0]?.s, { last: { text: INSERT, values: row("inlined") } }));
      expect(sent).toHaveLength(2);
      expect(answered).toBe("it's");
      const rows = (await db.query("SELECT s, n, f, b, arr, blobs, j, flag FROM t ORDER BY k DESC")).rows;
      expect(rows).toHaveLength(2);
      expect(rows[0]).toEqual(rows[1]);
      expect(rows[0]?.arr).toEqual([...awkward, null]);
    } finally {
      await db.close();
    }
  });

  it("rolls the whole transaction back when the last statement fails", async () => {
    const db = new PostgresDatabase(parseDatabaseTarget(schema.url) as PostgresTarget);
    try {
      await db.query("CREATE TABLE u (k TEXT PRIMARY KEY)");
      await expect(db.transaction((client) => client.query("INSERT INTO u VALUES ($1)", ["a"]), { last: { text: "INSERT INTO u VALUES ($1), ($1)", values: ["b"] } })).rejects.toThrow();
      expect((await db.query("SELECT count(*)::int AS n FROM u")).rows[0]).toEqual({ n: 0 });
    } finally {
      await db.close();
    }
  });

  it("leaves a `$n` inside quotes alone and refuses dollar quoting", () => {
    expect(inlineParams("SELECT '$1', \"$1\", $1", ["x"])?.text).toBe("SELECT '$1', \"$1\", 'x'");
    expect(inlineParams("SELECT $$ $1 $$, $1", ["x"])).toBeUndefined();
    // Shapes the scan does not understand go with parameters: a value could end a comment or an E'' string.
    for (const text of ["SELECT $1 -- don't", "SELECT $1 /* it's */", "SELECT E'it\\'s', $1", "SELECT col$1 FROM t"]) {
      expect(inlineParams(text, ["x\n; DROP TABLE t"]), text).toBeUndefined();
    }
    expect(inlineParams("SELECT $2", ["x"])).toBeUndefined();
  });
});
