// What the PostgreSQL server spent during a measurement: CPU of every postgres process (from /proc, so it needs
// the bench on the server's machine with the right to read them; the postmaster's cutime/cstime keep the CPU of
// backends that exited meanwhile), commits and rollbacks of the bench's database, WAL bytes written (the whole
// server's: other databases' writes count too), and backends waiting on a lock, sampled every 10 ms.
import { readdirSync, readFileSync } from "node:fs";
import type pg from "pg";

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux x86-64). */
const TICKS_PER_S = 100;

/** CPU ms of the postgres processes so far; undefined when /proc cannot be read. */
export function postgresCpuMs(): number | undefined {
  let ticks = 0;
  let found = false;
  try {
    for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      } catch {
        continue;
      }
      const close = stat.lastIndexOf(")");
      if (stat.slice(stat.indexOf("(") + 1, close) !== "postgres") continue;
      found = true;
      // Fields after the command: state ppid … utime(14) stime(15) cutime(16) cstime(17), counted from 1.
      const fields = stat.slice(close + 2).split(" ");
      const field = (n: number) => Number(fields[n - 3] ?? 0);
      // Children's times count only once reaped, and only the postmaster reaps backends: adding them for every
      // process also adds a backend's exited children, which have none.
      ticks += field(14) + field(15) + field(16) + field(17);
    }
  } catch {
    return undefined;
  }
  return found ? (ticks * 1000) / TICKS_PER_S : undefined;
}

/** The server's counters at one moment. */
export interface ServerCounters {
  cpuMs: number | undefined;
  commits: number;
  rollbacks: number;
  walLsn: string;
}

/** Reads the counters (`pg_stat_database` of the admin connection's database). */
export async function serverCounters(admin: pg.Client): Promise<ServerCounters> {
  const row = (await admin.query<{ c: string; r: string; lsn: string }>(
    "SELECT xact_commit AS c, xact_rollback AS r, pg_current_wal_lsn()::text AS lsn FROM pg_stat_database WHERE datname = current_database()",
  )).rows[0];
  return { cpuMs: postgresCpuMs(), commits: Number(row?.c ?? 0), rollbacks: Number(row?.r ?? 0), walLsn: row?.lsn ?? "0/0" };
}

/** What the server spent between two readings. */
export interface ServerCost {
  cpu_ms: number | null;
  commits: number;
  rollbacks: number;
  wal_bytes: number;
}

/** The difference of two readings, less `ownStatements` the admin connection ran between them; the statistics a backend flushes at most once a second are read after a pause. */
export async function serverCost(admin: pg.Client, before: ServerCounters, ownStatements = 0): Promise<ServerCost> {
  // pg_stat_database takes up to a second to show a backend's last transactions (PGSTAT_MIN_INTERVAL).
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const after = await serverCounters(admin);
  const wal = (await admin.query<{ d: string }>("SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn) AS d", [after.walLsn, before.walLsn])).rows[0];
  return {
    cpu_ms: after.cpuMs === undefined || before.cpuMs === undefined ? null : Math.round(after.cpuMs - before.cpuMs),
    // The admin connection's own statements (a sampler's, this read) are transactions too: not agentrt's.
    commits: after.commits - before.commits - ownStatements - 2,
    rollbacks: after.rollbacks - before.rollbacks,
    wal_bytes: Number(wal?.d ?? 0),
  };
}

/** What {@link sampleLockWaits} saw: backend-ms spent waiting on a lock (estimated from the samples), by wait event (samples). */
export interface LockWaits {
  samples: number;
  elapsed_ms: number;
  waiting_ms: number;
  samples_with_waiter: number;
  by_event: Record<string, number>;
}

/** Backends of the admin connection's database waiting on a heavyweight lock, sampled every ~10 ms until stopped. */
export function sampleLockWaits(admin: pg.Client): { stop: () => Promise<LockWaits> } {
  const started = Date.now();
  let stopped = false;
  let samples = 0;
  let waiting = 0;
  let withWaiter = 0;
  const byEvent = new Map<string, number>();
  const sql = `SELECT wait_event FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`;
  const loop = (async () => {
    while (!stopped) {
      const rows = (await admin.query<{ wait_event: string }>(sql)).rows;
      samples++;
      waiting += rows.length;
      if (rows.length > 0) withWaiter++;
      for (const row of rows) byEvent.set(row.wait_event, (byEvent.get(row.wait_event) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      const elapsed = Date.now() - started;
      // Each sample stands for the time since the one before: the loop's own pace (10 ms plus the query) decides it.
      return { samples, elapsed_ms: elapsed, waiting_ms: Math.round((waiting * elapsed) / Math.max(1, samples)), samples_with_waiter: withWaiter, by_event: Object.fromEntries(byEvent) };
    },
  };
}
