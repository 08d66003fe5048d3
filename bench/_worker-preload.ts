// Imported (after tsx) by the scale bench's worker processes: counts every round trip the process makes to
// PostgreSQL (each pg Client#query call is one) by statement kind, and writes them as JSON to
// BENCH_SQL_LOG.<pid> when the process exits — the bench's round trips per run and the statement mix it replays
// with pgbench.
import { writeFileSync } from "node:fs";
import pg from "pg";

const counts = new Map<string, number>();
const original = pg.Client.prototype.query;
pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
  const sent = args[0] as string | { text?: string } | undefined;
  const text = (typeof sent === "string" ? sent : sent?.text ?? "").replace(/\s+/g, " ").trim().slice(0, 400);
  counts.set(text, (counts.get(text) ?? 0) + 1);
  return (original as (...a: unknown[]) => unknown).apply(this, args);
} as typeof original;

const log = process.env.BENCH_SQL_LOG;
if (log !== undefined) process.on("exit", () => writeFileSync(`${log}.${process.pid}`, JSON.stringify(Object.fromEntries(counts))));
