/**
 * Counting driver (not a bench): `npx tsx bench/_count-sql.ts [runs]` runs durable city_weather runs through
 * `Runtime.submit` and prints, per run, the SQL statements executed on SQLite (by text) and the commits.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { Runtime } from "../src/runtime/index.js";

const runs = Number(process.argv[2] ?? 20);
process.env.AGENTRT_SIM_LATENCY_MS = "0";
const counts = new Map<string, number>();
let counting = false;
let tracing = false;
const proto = Database.prototype as unknown as { prepare(sql: string): Record<string, unknown>; exec(sql: string): unknown };
const prepare = proto.prepare;
proto.prepare = function (this: unknown, sql: string) {
  const st = prepare.call(this, sql);
  for (const m of ["run", "get", "all", "iterate"] as const) {
    const f = st[m] as ((...a: unknown[]) => unknown) | undefined;
    if (typeof f !== "function") continue;
    st[m] = function (this: unknown, ...a: unknown[]) {
      if (counting) counts.set(sql, (counts.get(sql) ?? 0) + 1);
      if (tracing) console.log(`  ${sql.replace(/\s+/g, " ").slice(0, 110)}`);
      return f.apply(this, a);
    };
  }
  return st;
};
const exec = proto.exec;
proto.exec = function (this: unknown, sql: string) {
  if (tracing && !sql.startsWith("PRAGMA busy")) console.log(`  exec: ${sql}`);
  if (counting) counts.set(`exec: ${sql}`, (counts.get(`exec: ${sql}`) ?? 0) + 1);
  return exec.call(this, sql);
};
const dir = mkdtempSync(join(tmpdir(), "agentrt-count-"));
const runtime = Runtime.open({ db: join(dir, "agentrt.db"), config: fileURLToPath(new URL("../langgraph.json", import.meta.url)) });
for (let i = 0; i < runs + 3; i++) {
  counting = i >= 3;
  tracing = process.env.TRACE_SQL === "1" && i === runs + 2;
  const view = await runtime.submit({ graph: "city_weather", message: "Weather for Beijing, Shanghai and Shenzhen" });
  if (view.status !== "SUCCEEDED") throw new Error(`city_weather ended ${view.status}`);
}
counting = false;
await runtime.close();
const rows = [...counts].sort((a, b) => b[1] - a[1]);
let total = 0;
for (const [sql, n] of rows) {
  total += n;
  console.log(`${(n / runs).toFixed(1).padStart(6)}  ${sql.replace(/\s+/g, " ").slice(0, 150)}`);
}
console.log(`total statements per run: ${(total / runs).toFixed(1)}`);
