// A full disk under a real server: the run that meets it ends its wait with STORAGE_FULL (507), a request made while
// the disk is full is refused with that code, and once space is back the run completes with its side effect done once
// and the file whole (integrity_check).
//
// How the disk is made full: the server runs as a child process in its own mount namespace (`unshare -m`) with its
// database on a small tmpfs; the test fills that tmpfs with a ballast file (reached through /proc/<pid>/root) and
// deletes it to give the space back. Writes then fail with ENOSPC in the kernel, which SQLite reports as
// SQLITE_FULL "database or disk is full" — exactly what a full disk gives, with no hook in the product. Measured
// alternatives: RLIMIT_FSIZE (`ulimit -f`) makes SQLite report SQLITE_IOERR_WRITE "disk I/O error" (EFBIG, not
// ENOSPC), a different failure; `PRAGMA max_page_count` is per connection, so it cannot reach the server's own
// (test/runtime/disk-full.test.ts uses it on a Runtime's connection in-process). Mounting needs CAP_SYS_ADMIN
// (root, as here and in CI); where it is missing the test is skipped with the reason, and the in-process test
// still covers the behaviour.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { afterEach, describe, expect, it } from "vitest";
import { canMountTmpfs } from "../helpers/tmpfs.js";

const serveChild = fileURLToPath(new URL("./fixtures/serve-child.ts", import.meta.url));
const serveWorkersChild = fileURLToPath(new URL("./fixtures/serve-workers-child.ts", import.meta.url));
const diskFullGraph = fileURLToPath(new URL("./fixtures/disk-full-graph.ts", import.meta.url));
const children: ChildProcess[] = [];
const require = createRequire(import.meta.url);

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

interface FullDiskServer {
  child: ChildProcess;
  url: string;
  /** A path on the server's tmpfs, as this process reaches it. */
  onDisk: (name: string) => string;
  /** The database file, as the server (in its mount namespace) names it. */
  dbPath: string;
}

/** `serve-child.ts` in its own mount namespace, its database on a tmpfs of `sizeMb` at a fresh directory. */
async function serveOnTmpfs(entry: string, sizeMb: number, config: string, env: Record<string, string>): Promise<FullDiskServer> {
  const mountpoint = mkdtempSync(join(tmpdir(), "agentrt-fulldisk-"));
  // serve-workers-child.ts takes the number of worker processes (forked into the same namespace) after the config.
  const script = 'mount -t tmpfs -o size="$1"m tmpfs "$2" && exec "$3" --import tsx "$4" "$2/agentrt.db" "$5" 1';
  const child = spawn("unshare", ["-m", "sh", "-c", script, "sh", String(sizeMb), mountpoint, process.execPath, entry, config], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  // Drained (a full pipe would block the server); AGENTRT_TEST_VERBOSE shows the server's diagnostics.
  child.stderr?.on("data", (chunk: Buffer) => {
    if (process.env.AGENTRT_TEST_VERBOSE) process.stderr.write(`[server] ${chunk.toString()}`);
  });
  for await (const line of createInterface({ input: child.stdout })) {
    const { url } = JSON.parse(line) as { url: string };
    // unshare and sh exec into node: the child's pid is the server's, in the namespace that sees the tmpfs.
    return { child, url, onDisk: (name) => `/proc/${child.pid}/root${mountpoint}/${name}`, dbPath: `${mountpoint}/agentrt.db` };
  }
  throw new Error("server exited before printing its address");
}

/**
 * Reads the server's live file in its mount namespace (`nsenter`; SQLite resolves /proc/<pid>/root to "/" and
 * would look in this process's namespace): its integrity check and the run's status changes.
 */
function inspect(server: FullDiskServer, runId: string): { integrity: string; moves: { to: string; code: string | null }[] } {
  const script = `const db = new (require(process.argv[1]))(process.argv[2], { readonly: true });
    process.stdout.write(JSON.stringify({
      integrity: db.pragma("integrity_check", { simple: true }),
      moves: db.prepare("SELECT to_status AS 'to', error_code AS code FROM run_events WHERE run_id = ? ORDER BY event_id").all(process.argv[3]),
    }));`;
  const args = ["-t", String(server.child.pid), "-m", process.execPath, "-e", script, require.resolve("better-sqlite3"), server.dbPath, runId];
  const done = spawnSync("nsenter", args, { encoding: "utf8" });
  if (done.status !== 0) throw new Error(`reading the server's file failed: ${done.stderr}`);
  return JSON.parse(done.stdout) as ReturnType<typeof inspect>;
}

/** Writes zeros to `path` until the file system is full (ENOSPC). */
function fillDisk(path: string): void {
  const fd = openSync(path, "w");
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as { code?: unknown }).code !== "ENOSPC") throw error;
  } finally {
    closeSync(fd);
  }
}

async function until(ok: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await ok())) await new Promise((resolve) => setTimeout(resolve, 20));
}

async function post(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const EXECUTORS = [
  { where: "the server process", entry: serveChild },
  // The stall reaches the server's waiter over IPC: the worker process cannot write it to the file either.
  { where: "a worker process", entry: serveWorkersChild },
];

describe.skipIf(!canMountTmpfs())("disk full under a real server (tmpfs in a mount namespace)", () => {
  it.each(EXECUTORS)("run in $where: answers the waiting client STORAGE_FULL, refuses requests with 507, completes once space is back", async ({ entry }) => {
    const dir = mkdtempSync(join(tmpdir(), "agentrt-diskfull-"));
    const config = join(dir, "langgraph.json");
    writeFileSync(config, JSON.stringify({ graphs: { disk_full: `${diskFullGraph}:graph` } }));
    const effects = join(dir, "effects.log");
    const server = await serveOnTmpfs(entry, 16, config, { DISK_FULL_EFFECTS: effects, DISK_FULL_SIGNALS: dir });

    const thread = await post(`${server.url}/threads`, {});
    const threadId = thread.body.thread_id as string;
    const waiting = post(`${server.url}/threads/${threadId}/runs/wait`, { assistant_id: "disk_full", input: { messages: [{ role: "user", content: "go" }] } });
    // The side effect is done and recorded; the run holds in its next tool while the disk fills up.
    await until(() => existsSync(join(dir, "holding")));
    fillDisk(server.onDisk("ballast"));
    writeFileSync(join(dir, "go"), "");

    const answer = await waiting;
    expect(answer.status).toBe(507);
    expect(answer.body).toMatchObject({ code: "STORAGE_FULL", message: expect.stringMatching(/database or disk is full/) });

    // A request that must write, while the disk is still full: the same stable code, not 500 INTERNAL.
    const refused = await post(`${server.url}/threads/${threadId}/runs`, { assistant_id: "disk_full", input: { messages: [] }, multitask_strategy: "enqueue" });
    expect(refused).toMatchObject({ status: 507, body: { code: "STORAGE_FULL" } });

    rmSync(server.onDisk("ballast"));
    const [run] = (await (await fetch(`${server.url}/threads/${threadId}/runs`)).json()) as { run_id: string }[];
    // As a client told 507 would: join again until the run answers (the server may not have seen the room yet).
    let joined: Response;
    while ((joined = await fetch(`${server.url}/threads/${threadId}/runs/${run!.run_id}/join`)).status === 507) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(joined.status).toBe(200);
    const values = (await joined.json()) as { messages: { content: string }[] };
    expect(values.messages.at(-1)?.content).toBe("note sent");
    const final = (await (await fetch(`${server.url}/threads/${threadId}/runs/${run!.run_id}`)).json()) as { status: string };
    expect(final.status).toBe("success");
    expect(readFileSync(effects, "utf8")).toBe("hello\n");

    const { integrity, moves } = inspect(server, run!.run_id);
    expect(integrity).toBe("ok");
    // RETRYING with the reason, once the disk had room to say so, then a new attempt to the end.
    expect(moves).toEqual([
      { to: "QUEUED", code: null }, { to: "RUNNING", code: null }, { to: "RETRYING", code: "STORAGE_FULL" },
      { to: "RUNNING", code: null }, { to: "SUCCEEDED", code: null },
    ]);
  });
});
