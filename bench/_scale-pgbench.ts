// Scale, the machine's ceiling: pgbench replaying agentrt's per-run statement mix, as counted in the worker
// processes (_worker-preload.ts), against two plain tables in a scratch schema. A synthetic replay: per agentrt
// run, one pgbench script with as many reads, inserts, updates and transactions as a run sent, each write carrying
// its share of the run's WAL bytes — about the same round trips, commits and WAL, not the same plans (simple
// protocol: a multi-statement send cannot be prepared). Its runs/s is what this server could take of agentrt's work were agentrt itself free.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type pg from "pg";

/** Round trips per run of each kind. */
export interface StatementKinds {
  select: number;
  insert: number;
  update: number;
  delete: number;
  begin: number;
  commit: number;
  other: number;
}

/** Classifies a statement mix (text → count, over `runs` runs) by kind, per run. */
export function kindsPerRun(mix: Map<string, number>, runs: number): StatementKinds {
  const kinds: StatementKinds = { select: 0, insert: 0, update: 0, delete: 0, begin: 0, commit: 0, other: 0 };
  for (const [text, n] of mix) {
    const upper = text.toUpperCase();
    // BEGIN rides with the transaction's first statement (`BEGIN; …`): one round trip of both.
    if (upper.startsWith("BEGIN")) kinds.begin += n;
    if (upper === "BEGIN") continue;
    const body = upper.replace(/^BEGIN;\s*/, "");
    const kind = /^(COMMIT|ROLLBACK)/.test(body) ? "commit" : /\bINSERT INTO\b/.test(body) ? "insert" : /\bUPDATE \w+ SET\b/.test(body) ? "update"
      : /\bDELETE FROM\b/.test(body) ? "delete" : /^(SELECT|WITH)/.test(body) ? "select" : "other";
    kinds[kind] += n;
  }
  for (const key of Object.keys(kinds) as Array<keyof StatementKinds>) kinds[key] = Number((kinds[key] / runs).toFixed(2));
  return kinds;
}

/**
 * The pgbench script of one run's mix, one line per round trip as agentrt sends them: a transaction's BEGIN rides
 * with its first statement and its COMMIT with its last (`\\;` joins them in one send); `walBytes` per run is
 * spread over its writes.
 */
export function pgbenchScript(kinds: StatementKinds, walBytes: number): string {
  const writes = Math.max(1, Math.round(kinds.insert + kinds.update + kinds.delete));
  const size = Math.max(32, Math.min(8000, Math.round(walBytes / writes) - 100));
  // Random text: a repeated one would be compressed by TOAST and write almost no WAL.
  const payload = `(SELECT string_agg(md5(random()::text), '') FROM generate_series(1, ${Math.ceil(size / 32)}))`;
  const lines = ["\\set id random(1, 100000000)", "INSERT INTO pgb_runs (run_id, status, v, payload) VALUES (:id, 'QUEUED', 0, '') ON CONFLICT (run_id) DO NOTHING;"];
  const repeat = (n: number, line: string) => {
    for (let i = 0; i < Math.round(n); i++) lines.push(line);
  };
  // Transactions of agentrt's (a claim, a fenced checkpoint): a locking read, then a write with the commit.
  const transactions = Math.round(Math.min(kinds.begin, kinds.select, kinds.update + kinds.insert));
  for (let i = 0; i < transactions; i++) {
    lines.push("BEGIN \\; SELECT status FROM pgb_runs WHERE run_id = :id FOR UPDATE;", `INSERT INTO pgb_rows (run_id, payload) VALUES (:id, ${payload}) \\; COMMIT;`);
  }
  repeat(kinds.select - transactions, "SELECT status, v FROM pgb_runs WHERE run_id = :id;");
  repeat(kinds.update, "UPDATE pgb_runs SET v = v + 1 WHERE run_id = :id;");
  repeat(kinds.insert - transactions - 1, `INSERT INTO pgb_rows (run_id, payload) VALUES (:id, ${payload});`);
  repeat(kinds.delete, "DELETE FROM pgb_rows WHERE id = -1;");
  repeat(kinds.other, "SELECT 1;");
  return `${lines.join("\n")}\n`;
}

/** pgbench's ceiling for `kinds` on the admin connection's server, in a scratch schema dropped after. */
export async function measurePgbench(admin: pg.Client, serverUrl: string, dir: string, kinds: StatementKinds, walBytes: number, options: { clients: number; seconds: number }) {
  const schema = `bench_pgb_${process.pid}`;
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema};
    CREATE TABLE ${schema}.pgb_runs (run_id BIGINT PRIMARY KEY, status TEXT NOT NULL, v BIGINT NOT NULL, payload TEXT NOT NULL);
    CREATE TABLE ${schema}.pgb_rows (id BIGSERIAL PRIMARY KEY, run_id BIGINT NOT NULL, payload TEXT NOT NULL);
    CREATE INDEX ON ${schema}.pgb_rows (run_id);`);
  const script = join(dir, "agentrt-run.pgbench");
  writeFileSync(script, pgbenchScript(kinds, walBytes));
  try {
    const url = new URL(serverUrl);
    const result = spawnSync("pgbench", ["-n", "-f", script, "-c", String(options.clients), "-j", "2", "-T", String(options.seconds),
      "-h", url.hostname, "-p", url.port || "5432", "-U", decodeURIComponent(url.username) || "postgres", url.pathname.slice(1)], {
      encoding: "utf8", env: { ...process.env, PGOPTIONS: `-c search_path=${schema}` },
    });
    const tps = /tps = ([\d.]+)/.exec(result.stdout ?? "")?.[1];
    if (result.status !== 0 || tps === undefined) return { error: `pgbench failed (${String(result.status)}): ${(result.stderr ?? result.error?.message ?? "").slice(0, 300)}` };
    return { runs_per_s: Number(Number(tps).toFixed(1)), clients: options.clients, seconds: options.seconds, script };
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  }
}
