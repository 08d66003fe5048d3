// Shared by the scale bench's parts: the PostgreSQL server, a fresh schema per measurement (dropped after),
// `agentrt` child processes started from the checkout's sources, and percentiles.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

/** The server every PostgreSQL measurement uses: AGENTRT_BENCH_PG_URL, else the machine's. */
export const SERVER = process.env.AGENTRT_BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";
/** The checkout's root and its langgraph.json (city_weather, ops_rollback). */
export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const CONFIG = join(ROOT, "langgraph.json");
const BIN = join(ROOT, "src", "cli", "bin.ts");

/** A fresh schema's name and its URL (the schema rides in the URL's `schema` parameter). */
export interface BenchSchema {
  name: string;
  url: string;
}

/** One admin connection (to `server`'s database) for the whole bench: schema drops, counts, settings. */
export async function openAdmin(server = SERVER): Promise<pg.Client> {
  const admin = new pg.Client({ connectionString: server, application_name: "agentrt-bench-scale" });
  await admin.connect();
  return admin;
}

/** A new schema name (not created: the runtime migrates it at its first use). */
export function freshSchema(label: string): BenchSchema {
  const name = `bench_scale_${label}_${randomBytes(4).toString("hex")}`;
  const url = new URL(SERVER);
  url.searchParams.set("schema", name);
  return { name, url: url.toString() };
}

/** Runs `work` on a fresh schema and drops the schema after, whatever happened. */
export async function withSchema<T>(admin: pg.Client, label: string, work: (schema: BenchSchema) => Promise<T>): Promise<T> {
  const schema = freshSchema(label);
  try {
    return await work(schema);
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema.name} CASCADE`);
  }
}

/** `agentrt …args` as a child process from the checkout's sources (tsx), its output kept. */
export function agentrt(args: string[], env: NodeJS.ProcessEnv = {}): { child: ChildProcess; stdout: () => string; stderr: () => string; exited: Promise<number | null> } {
  // BENCH_SCALE_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the children.
  const nodeArgs = (process.env.BENCH_SCALE_NODE_ARGS ?? "").split(" ").filter((a) => a !== "");
  const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, AGENTRT_CONFIG: CONFIG, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  // A worker prints a line per run: only the tail is kept.
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (out = (out + chunk).slice(-10_000)));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** The value at percentile `p` of ascending `sorted` (nearest rank). */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** `a / b` to three significant digits. */
export const ratio = (a: number, b: number): number => Number((a / b).toPrecision(3));

/** `--name value` or `--name=value` from this process's argv, else `fallback`. */
export function flag(name: string, fallback: number): number {
  const args = process.argv.slice(2);
  const i = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return fallback;
  const raw = args[i]?.includes("=") === true ? args[i]?.split("=")[1] : args[i + 1];
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`bench scale: --${name} must be a positive integer, got ${String(raw)}`);
  return n;
}

