import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { SqliteRunStore, createWorker } from "../../src/runs/index.js";
import { tempDbPath } from "./helpers.js";

const CHILD = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "worker-child.ts");

interface Child {
  proc: ChildProcess;
  ready: Promise<void>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

function startWorker(env: Record<string, string>): Child {
  const proc = spawn(process.execPath, ["--import", "tsx", CHILD], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  proc.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.includes("ready\n")) markReady();
  });
  proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    proc.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { proc, ready, exit };
}

interface Execution {
  run_id: string;
  worker_id: string;
  token: number;
  finished: number;
}

describe("worker processes sharing one SQLite file", () => {
  it("two processes execute each of 200 runs exactly once, within the global cap", async () => {
    const path = tempDbPath();
    const store = SqliteRunStore.open(openDatabase(path));
    for (let i = 0; i < 200; i++) await store.create({ graphId: "g", priority: i % 3, userId: `u${i % 7}` });
    const go = `${path}.go`;
    const workers = ["P1", "P2"].map((id) =>
      startWorker({
        DB: path, WORKER_ID: id, GO_FILE: go, CONCURRENCY: "4", MAX_RUNNING: "6", SLEEP_MS: "10", LEASE_MS: "20000", HEARTBEAT_MS: "2000",
      }),
    );
    await Promise.all(workers.map((w) => w.ready));
    writeFileSync(go, "");
    const exits = await Promise.all(workers.map((w) => w.exit));
    for (const exit of exits) expect(exit, exit.stderr).toMatchObject({ code: 0 });

    const executions = store.db.prepare("SELECT run_id, worker_id, token, finished FROM test_executions").all() as Execution[];
    const runs = await store.list({ limit: 1000 });
    expect(runs).toHaveLength(200);
    expect(runs.every((r) => r.status === "SUCCEEDED" && r.attempts === 1)).toBe(true);
    expect(executions).toHaveLength(200);
    expect(new Set(executions.map((e) => e.run_id)).size).toBe(200);
    const byRun = new Map(executions.map((e) => [e.run_id, e.worker_id]));
    expect(runs.every((r) => (r.result as { by: string }).by === byRun.get(r.runId))).toBe(true);
    const perWorker = exits.map((e) => JSON.parse(e.stdout.trim().split("\n").at(-1)!) as { claimed: number });
    expect(perWorker.reduce((sum, s) => sum + s.claimed, 0)).toBe(200);
    expect(perWorker.every((s) => s.claimed > 0)).toBe(true);
    // 2 workers × concurrency 4 could run 8 at once; the file-wide cap of 6 must hold across both processes.
    const gauge = store.db.prepare("SELECT open, max_open FROM test_gauge").get() as { open: number; max_open: number };
    expect(gauge.open).toBe(0);
    expect(gauge.max_open).toBeLessThanOrEqual(6);
  });

  it("a run of a SIGKILLed worker is finished by another after its lease expires", async () => {
    const path = tempDbPath();
    const store = SqliteRunStore.open(openDatabase(path));
    const { runId } = await store.create({ graphId: "g" });
    const victim = startWorker({ DB: path, WORKER_ID: "victim", MODE: "hang", LEASE_MS: "300", HEARTBEAT_MS: "50" });
    const executions = () => store.db.prepare("SELECT run_id, worker_id, token, finished FROM test_executions ORDER BY id").all() as Execution[];
    const tableExists = () => store.db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'test_executions'").get() !== undefined;
    while (!tableExists() || executions().length === 0) await new Promise((r) => setTimeout(r, 20));
    victim.proc.kill("SIGKILL");
    expect((await victim.exit).signal).toBe("SIGKILL");
    expect(await store.get(runId)).toMatchObject({ status: "RUNNING", lease: { owner: "victim" } });

    // The other worker runs in this process: it must wait for the dead lease to expire, then take over.
    const record = store.db.prepare("INSERT INTO test_executions (run_id, worker_id, token, finished) VALUES (?, ?, ?, 1)");
    const stats = await createWorker({
      store, workerId: "rescuer", leaseMs: 300, heartbeatMs: 50, pollMs: 20, once: true,
      execute: async (run, lease) => {
        record.run(run.runId, "rescuer", lease.token);
        return { status: "SUCCEEDED", result: { by: "rescuer" } };
      },
    }).run();
    expect(stats).toMatchObject({ claimed: 1, finished: { SUCCEEDED: 1 } });
    expect(await store.get(runId)).toMatchObject({ status: "SUCCEEDED", attempts: 2, result: { by: "rescuer" }, lease: null });
    expect(executions().map((e) => [e.worker_id, e.token, e.finished])).toEqual([
      ["victim", 1, 0],
      ["rescuer", 2, 1],
    ]);
    expect((await store.events(runId)).map((e) => [e.to, e.actor ?? e.errorCode])).toEqual([
      ["QUEUED", null],
      ["RUNNING", "victim"],
      ["RETRYING", "LEASE_LOST"],
      ["RUNNING", "rescuer"],
      ["SUCCEEDED", "rescuer"],
    ]);
  });
});
