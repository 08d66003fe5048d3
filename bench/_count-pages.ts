/**
 * Counting driver (not a bench): `npx tsx bench/_count-pages.ts [runs]` runs durable city_weather runs with WAL
 * auto-checkpoints off and prints, per run, the commits and WAL pages by transaction (named by its first write).
 * `COUNT_SIDE=langgraph` counts the runs bench's baseline instead (createReactAgent v2 + the official saver,
 * durability sync, the same simulated tool): WAL pages and commits per run only, read from the WAL's frames.
 */
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { Runtime } from "../src/runtime/index.js";
import { langgraphBaseline } from "./_langgraph-baseline.js";

const runs = Number(process.argv[2] ?? 20);
/** A WAL frame: its header, then one page (SQLite's default 4 KB, on both sides). */
const FRAME_HEADER = 24;
const FRAME_BYTES = 4096 + FRAME_HEADER;
process.env.AGENTRT_SIM_LATENCY_MS = "0";
const dir = mkdtempSync(join(tmpdir(), "agentrt-pages-"));
const file = join(dir, "agentrt.db");
const walSize = (): number => { try { return statSync(`${file}-wal`).size; } catch { return 0; } };
const byTx = new Map<string, { commits: number; pages: number }>();
let counting = false;
let label: string | undefined;
let before = 0;
const ranges: { label: string; from: number; to: number }[] = [];
const settle = (): void => {
  if (label === undefined) return;
  if (counting) ranges.push({ label, from: before, to: walSize() });
  const pages = Math.round((walSize() - before) / FRAME_BYTES);
  const entry = byTx.get(label) ?? { commits: 0, pages: 0 };
  if (counting) byTx.set(label, { commits: entry.commits + 1, pages: entry.pages + pages });
  label = undefined;
};
const seen = new WeakSet<object>();
const proto = Database.prototype as unknown as { prepare(sql: string): Record<string, unknown> };
const prepare = proto.prepare;
proto.prepare = function (this: Database.Database, sql: string) {
  if (!seen.has(this)) { seen.add(this); Database.prototype.pragma.call(this, "wal_autocheckpoint = 0"); }
  const st = prepare.call(this, sql);
  const text = sql.replace(/\s+/g, " ").trim();
  for (const m of ["run", "get", "all"] as const) {
    const f = st[m] as ((...a: unknown[]) => unknown) | undefined;
    if (typeof f !== "function") continue;
    st[m] = (...a: unknown[]) => {
      const inTx = this.inTransaction;
      if (text.startsWith("BEGIN")) { before = walSize(); label = undefined; return f.apply(st, a); }
      if (!inTx && /^(INSERT|UPDATE|DELETE)/.test(text)) { before = walSize(); label = `auto: ${text.slice(0, 70)}`; const r = f.apply(st, a); settle(); return r; }
      if (inTx && label === undefined && /^(INSERT|UPDATE|DELETE)/.test(text)) label = text.slice(0, 70);
      const r = f.apply(st, a);
      if (text === "COMMIT") settle();
      return r;
    };
  }
  return st;
};
if (process.env.COUNT_SIDE === "langgraph") {
  const side = langgraphBaseline(file, { sameTool: true, version: "v2", durability: "sync" });
  for (let i = 0; i < 3; i++) await side.run(i);
  const from = walSize();
  for (let i = 3; i < runs + 3; i++) await side.run(i);
  const { frames, commits } = walFrames(from, walSize());
  console.log(`LangGraph v2 + official saver (sync) per run: ${(commits / runs).toFixed(1)} commits, ${(frames / runs).toFixed(1)} WAL pages`);
  side.close();
  process.exit(0);
}

/** Frames and commit frames (a frame whose header records the database size after a commit) in a WAL byte range. */
function walFrames(from: number, to: number): { frames: number; commits: number } {
  const wal = readFileSync(`${file}-wal`);
  let frames = 0;
  let commits = 0;
  for (let off = from; off + FRAME_HEADER <= to; off += FRAME_BYTES) {
    frames++;
    if (wal.readUInt32BE(off + 4) !== 0) commits++;
  }
  return { frames, commits };
}

const runtime = Runtime.open({ db: file, config: fileURLToPath(new URL("../langgraph.json", import.meta.url)) });
for (let i = 0; i < runs + 3; i++) {
  counting = i >= 3;
  const view = await runtime.submit({ graph: "city_weather", message: "Weather for Beijing, Shanghai and Shenzhen" });
  if (view.status !== "SUCCEEDED") throw new Error(`city_weather ended ${view.status}`);
}
counting = false;
let commits = 0;
let pages = 0;
for (const [name, e] of [...byTx].sort((a, b) => b[1].pages - a[1].pages)) {
  commits += e.commits; pages += e.pages;
  console.log(`${(e.commits / runs).toFixed(1).padStart(5)} commits ${(e.pages / runs).toFixed(1).padStart(6)} pages  ${name}`);
}
console.log(`per run: ${(commits / runs).toFixed(1)} commits, ${(pages / runs).toFixed(1)} WAL pages`);
const wal = readFileSync(`${file}-wal`);
const names = new Map<number, string>();
const probe = new Database(file, { readonly: true });
for (const r of probe.prepare("SELECT name, pageno FROM dbstat").all() as { name: string; pageno: number }[]) names.set(r.pageno, r.name);
const perLabel = new Map<string, Map<string, number>>();
for (const r of ranges) {
  const m = perLabel.get(r.label) ?? new Map<string, number>();
  perLabel.set(r.label, m);
  for (let off = r.from; off + FRAME_HEADER <= r.to; off += FRAME_BYTES) {
    const page = wal.readUInt32BE(off);
    const name = names.get(page) ?? `page ${page}?`;
    m.set(name, (m.get(name) ?? 0) + 1);
  }
}
for (const [l, m] of perLabel) console.log(l.slice(0, 50), JSON.stringify(Object.fromEntries([...m].map(([k, v]) => [k, +(v / runs).toFixed(1)]))));
await runtime.close();
