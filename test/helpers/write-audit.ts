// Which connection wrote what, and when, in a test schema: a trigger on every table records each row written with
// the writer's application_name and the server's clock, so a test can say from the database itself that a process
// wrote nothing after a moment (e.g. a partitioned worker after its run was taken over).
import { withClient } from "./postgres.js";

/** One row written, as the audit trigger saw it. */
export interface AuditedWrite {
  id: number;
  table: string;
  op: string;
  app: string;
  /** The written row (the old one for a DELETE) as JSON. */
  row: Record<string, unknown>;
}

/** Installs the audit on every table the schema has now (create the tables first). */
export async function auditWrites(schema: string): Promise<void> {
  await withClient(async (client) => {
    await client.query(`CREATE TABLE ${schema}.write_audit (id BIGSERIAL PRIMARY KEY, tbl TEXT, op TEXT, app TEXT, row_json JSONB)`);
    await client.query(`CREATE FUNCTION ${schema}.audit_write() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO ${schema}.write_audit (tbl, op, app, row_json)
          VALUES (TG_TABLE_NAME, TG_OP, current_setting('application_name'), to_jsonb(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END));
        RETURN NULL;
      END $$`);
    const tables = await client.query<{ tablename: string }>(
      "SELECT tablename FROM pg_tables WHERE schemaname = $1 AND tablename <> 'write_audit'", [schema]);
    for (const { tablename } of tables.rows) {
      await client.query(`CREATE TRIGGER audit_write AFTER INSERT OR UPDATE OR DELETE ON ${schema}.${tablename}
        FOR EACH ROW EXECUTE FUNCTION ${schema}.audit_write()`);
    }
  });
}

/** Every audited write, in commit-independent insertion order (by id). */
export async function auditedWrites(schema: string): Promise<AuditedWrite[]> {
  const { rows } = await withClient((client) =>
    client.query<{ id: string; tbl: string; op: string; app: string; row_json: Record<string, unknown> }>(
      `SELECT id, tbl, op, app, row_json FROM ${schema}.write_audit ORDER BY id`));
  return rows.map((r) => ({ id: Number(r.id), table: r.tbl, op: r.op, app: r.app, row: r.row_json }));
}
