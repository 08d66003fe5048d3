// The read commands (runs, status, trace, world, stats, info) read a database they cannot write: a file nobody
// may write, a directory where SQLite cannot create its -wal and -shm files, an older file they must not migrate.
// They change nothing — same bytes, same mtime; where SQLite cannot create its -wal/-shm files (or they would
// belong to another user than the file's) nothing is left beside the file. Tests run as root here, whom
// chmod does not stop: "read-only" is made with chattr +i, which root obeys (chmod when not root).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, chownSync, copyFileSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { runCli } from "../helpers/cli.js";

const V1 = fileURLToPath(new URL("../fixtures/historical/runs-ledger-v1.sqlite", import.meta.url));
const isRoot = process.getuid?.() === 0;

/** Makes `path` unwritable for this process (root included); returns the undo. */
function freeze(path: string): () => void {
  if (isRoot) {
    execFileSync("chattr", ["+i", path]);
    return () => execFileSync("chattr", ["-i", path]);
  }
  const mode = statSync(path).mode & 0o777;
  chmodSync(path, statSync(path).isDirectory() ? 0o555 : 0o444);
  return () => chmodSync(path, mode);
}

/** Whether {@link freeze} works here (chattr needs root and a file system that supports it). */
function canFreeze(): boolean {
  const dir = mkdtempSync(join(tmpdir(), "agentrt-freeze-"));
  try {
    freeze(dir)();
    return true;
  } catch {
    return false;
  }
}

/** What must not change: the file's bytes and mtime, and (with `listing`) the directory's listing. */
function fingerprint(db: string, listing = true): { hash: string; mtime: bigint; files?: string[] } {
  const dir = join(db, "..");
  return {
    hash: createHash("sha256").update(readFileSync(db)).digest("hex"),
    mtime: statSync(db, { bigint: true }).mtimeNs,
    ...(listing ? { files: readdirSync(dir).sort() } : {}),
  };
}

const undo: (() => void)[] = [];
afterEach(() => {
  for (const fn of undo.splice(0).reverse()) fn();
});

let frozenOk = false;
let source = "";
let doneRun = "";
let waitingRun = "";
beforeAll(async () => {
  frozenOk = canFreeze();
  source = join(mkdtempSync(join(tmpdir(), "agentrt-ro-src-")), "runs.db");
  const done = await runCli(["run", "order_delay", "--message", "Is order 10086 late?", "--db", source, "--json"]);
  expect(done.code).toBe(0);
  doneRun = (JSON.parse(done.out) as { run_id: string }).run_id;
  const waiting = await runCli(["run", "ops_rollback", "--message", "Why did the payments deploy fail? Roll back if needed.", "--db", source, "--json"]);
  waitingRun = (JSON.parse(waiting.out) as { run_id: string; status: string }).run_id;
});

/** A fresh copy of the prepared database, alone in a new directory. */
function copy(from = source): string {
  const db = join(mkdtempSync(join(tmpdir(), "agentrt-ro-")), "runs.db");
  copyFileSync(from, db);
  return db;
}

async function readAll(db: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const args of [["runs"], ["status", waitingRun], ["status", doneRun], ["trace", doneRun], ["world"], ["stats"], ["info"]]) {
    const result = await runCli([...args, "--db", db, "--json"]);
    expect(result.err, args.join(" ")).toBe("");
    expect(result.code, args.join(" ")).toBe(0);
    out[args.join(" ")] = JSON.parse(result.out);
  }
  return out;
}

function expectContents(read: Record<string, unknown>): void {
  expect((read.runs as { runs: { run_id: string }[] }).runs.map((r) => r.run_id)).toEqual([waitingRun, doneRun]);
  expect(read[`status ${waitingRun}`]).toMatchObject({ status: "WAITING_APPROVAL", pending: [{ tool: "rollback_deployment" }] });
  expect(read[`status ${doneRun}`]).toMatchObject({ status: "SUCCEEDED" });
  expect((read[`trace ${doneRun}`] as { spans: unknown[] }).spans.length).toBeGreaterThan(0);
  expect(read.world).toMatchObject({ calls: { send_message: 1 } });
  expect(read.stats).toMatchObject({ runs: 2 });
  expect(read.info).toMatchObject({ exists: true, modules: { runs: 6 } });
}

describe("read commands on a database they cannot write", () => {
  it("leave a writable file's bytes untouched (read in place: SQLite may add its own -wal/-shm)", async () => {
    const db = copy();
    const before = fingerprint(db, false);
    expectContents(await readAll(db));
    expect(fingerprint(db, false)).toEqual(before);
  });

  it("read a file nobody may write (chattr +i, or chmod 444 when not root)", async (ctx) => {
    if (!frozenOk) ctx.skip();
    const db = copy();
    undo.push(freeze(db));
    const before = fingerprint(db, false);
    expectContents(await readAll(db));
    expect(fingerprint(db, false)).toEqual(before);
  });

  it("leave nothing of root's beside another user's file (a -shm the owner's server could not write)", async (ctx) => {
    if (!isRoot) ctx.skip();
    const db = copy();
    chownSync(db, 4242, 4242);
    const before = fingerprint(db);
    expectContents(await readAll(db));
    expect(fingerprint(db)).toEqual(before);
  });

  it("read a file in a directory where -wal and -shm cannot be created", async (ctx) => {
    if (!frozenOk) ctx.skip();
    const db = copy();
    undo.push(freeze(join(db, "..")));
    const before = fingerprint(db);
    expectContents(await readAll(db));
    expect(fingerprint(db)).toEqual(before);
  });

  it("see what a writer that still has the file open committed to its -wal", async () => {
    const db = copy();
    const writer = openDatabase(db);
    undo.push(() => writer.close());
    writer.prepare("SELECT count(*) FROM runs").get();
    const queued = await runCli(["run", "city_weather", "--message", "Weather in Paris?", "--queue", "--db", db, "--json"]);
    const queuedRun = (JSON.parse(queued.out) as { run_id: string }).run_id;
    const files = readdirSync(join(db, "..")).sort();
    expect(files).toEqual(["runs.db", "runs.db-shm", "runs.db-wal"]);
    const listed = await runCli(["runs", "--db", db, "--json"]);
    expect((JSON.parse(listed.out) as { runs: { run_id: string }[] }).runs.map((r) => r.run_id)).toEqual([queuedRun, waitingRun, doneRun]);
    expect(readdirSync(join(db, "..")).sort()).toEqual(files);
  });

  it("read an older file as it is, without migrating it", async (ctx) => {
    if (!frozenOk) ctx.skip();
    const db = copy(V1);
    undo.push(freeze(join(db, "..")));
    const before = fingerprint(db);
    const runs = await runCli(["runs", "--db", db, "--json"]);
    expect(runs.err).toBe("");
    expect((JSON.parse(runs.out) as { runs: { run_id: string }[] }).runs.map((r) => r.run_id).sort()).toEqual(["run_done", "run_queued", "run_waiting"]);
    const status = await runCli(["status", "run_waiting", "--db", db, "--json"]);
    expect(JSON.parse(status.out)).toMatchObject({ status: "WAITING_APPROVAL", user: "bob" });
    const world = await runCli(["world", "--db", db, "--json"]);
    expect(JSON.parse(world.out)).toEqual({ calls: {}, failures: {}, systems: {} });
    expect(fingerprint(db)).toEqual(before);
  });

  it("show a wait past its TTL as stored when the expiry cannot be recorded", async (ctx) => {
    if (!frozenOk) ctx.skip();
    const db = join(mkdtempSync(join(tmpdir(), "agentrt-ro-ttl-")), "runs.db");
    const waiting = await runCli(["run", "ops_rollback", "--message", "Why did the payments deploy fail? Roll back if needed.", "--wait-ttl-ms", "1", "--db", db, "--json"]);
    const runId = (JSON.parse(waiting.out) as { run_id: string }).run_id;
    undo.push(freeze(db));
    const before = fingerprint(db, false);
    const status = await runCli(["status", runId, "--db", db, "--json"]);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.out)).toMatchObject({ status: "WAITING_APPROVAL" });
    expect((await runCli(["runs", "--db", db, "--json"])).code).toBe(0);
    expect(fingerprint(db, false)).toEqual(before);
  });
});
