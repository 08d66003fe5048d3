// Round trips to PostgreSQL, counted at the driver: every pg.Client#query call is one (a pool.query is one
// client query; BEGIN and COMMIT are one each, and a `BEGIN; …` multi-statement send is one). Counting is always on
// once installed; read it around an op. While a breakdown is recording, each round trip is also labelled by what it
// does (verb and tables) and by the transaction it belongs to, so a run's trips can be told apart by module.
import pg from "pg";

let count = 0;
let installed = false;
let breakdown: Map<string, number> | undefined;

/** A client's open transaction: the labels of its statements so far, named once it ends. */
const openTransactions = new WeakMap<pg.Client, string[]>();

/** Wraps pg's Client.prototype.query (once) so every query any pool or client makes is counted. */
export function countRoundTrips(): void {
  if (installed) return;
  installed = true;
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
    count += 1;
    if (breakdown !== undefined) label(this, args[0]);
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
}

/** Round trips per call of `op`, averaged over `calls` calls (made one after another). */
export async function roundTripsPer(calls: number, op: (i: number) => Promise<unknown>): Promise<number> {
  const before = count;
  for (let i = 0; i < calls; i++) await op(i);
  return Number(((count - before) / calls).toFixed(2));
}

/** Round trips of one call of `op`, with their breakdown: `"<transaction> | <statement>"` → round trips. */
export async function roundTripsWithBreakdown(op: () => Promise<unknown>): Promise<{ total: number; breakdown: Record<string, number> }> {
  const before = count;
  breakdown = new Map();
  try {
    await op();
    const rows = [...breakdown.entries()].sort(([a], [b]) => a.localeCompare(b));
    return { total: count - before, breakdown: Object.fromEntries(rows) };
  } finally {
    breakdown = undefined;
  }
}

function label(client: pg.Client, query: unknown): void {
  const config = query as { text?: unknown } | undefined;
  const text = typeof query === "string" ? query : typeof config?.text === "string" ? config.text : "";
  // A statement sent with COMMIT (`…; COMMIT`) ends its transaction as a COMMIT sent alone does.
  const ends = /(^|;)\s*(COMMIT|ROLLBACK)\s*;?\s*$/i.test(text);
  const statement = describe(text.replace(/;\s*(COMMIT|ROLLBACK)\s*;?\s*$/i, "")) + (ends && !/^\s*(COMMIT|ROLLBACK)\b/i.test(text) ? "; COMMIT" : "");
  let open = openTransactions.get(client);
  if (/^\s*BEGIN\b/i.test(text)) openTransactions.set(client, (open = []));
  else if (open === undefined) {
    add(`(autocommit) | ${statement}`);
    return;
  }
  open.push(statement);
  if (ends) {
    openTransactions.delete(client);
    const name = transactionName(open);
    for (const s of open) add(`${name} | ${s}`);
  }
}

function add(key: string): void {
  breakdown?.set(key, (breakdown.get(key) ?? 0) + 1);
}

/** A short label of one round trip: its verb, the tables it touches, and its row lock. */
function describe(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (/^(BEGIN|COMMIT|ROLLBACK)\b/i.test(flat)) {
    const rest = flat.replace(/^BEGIN;?\s*/i, "");
    return /^BEGIN/i.test(flat) && rest !== "" ? `BEGIN; ${describe(rest)}` : (flat.split(/[ ;]/)[0] ?? flat).toUpperCase();
  }
  if (/pg_advisory_xact_lock/i.test(flat) && !/\b(INSERT|UPDATE|DELETE)\b/i.test(flat)) return "advisory lock";
  const verb = /\b(INSERT|UPDATE|DELETE)\b/i.exec(flat)?.[1]?.toUpperCase() ?? "SELECT";
  // Names of the statement's own CTEs, SET of an upsert and set-returning functions are no tables.
  const notTables = new Set(["set", "lateral", "unnest", "jsonb_each_text", ...[...flat.matchAll(/\b([a-z_][a-z0-9_]*)\s+AS\s*(?:MATERIALIZED\s*)?\(/gi)].map((m) => m[1]!.toLowerCase())]);
  const tables = [...new Set([...flat.matchAll(/\b(?:FROM|INTO|UPDATE|JOIN)\s+([a-z_][a-z0-9_]*)/gi)].map((m) => m[1]!.toLowerCase()))].filter((t) => !notTables.has(t));
  return `${verb} ${tables.join("+") || "-"}${/FOR SHARE/i.test(flat) ? " FOR SHARE" : ""}`;
}

/** Names a transaction by what it writes (the fence on `runs` inside a checkpoint write does not name it). */
function transactionName(statements: readonly string[]): string {
  const all = statements.join(" ");
  if (all.includes("checkpoint_writes")) return "tx checkpoint putWrites";
  if (all.includes("checkpoint_blobs") || /\bcheckpoints\b/.test(all)) return "tx checkpoint put";
  if (all.includes("sim_")) return "tx tool (sim world)";
  if (all.includes("ledger")) return "tx ledger";
  if (all.includes("runs")) return "tx runs";
  return "tx other";
}
