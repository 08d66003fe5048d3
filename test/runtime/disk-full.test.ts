// A full disk under the Runtime used as a library: a run whose checkpoint the disk refuses goes RETRYING with
// STORAGE_FULL after a backoff (announced at once by a storage_failed event), and completes on its next attempt once
// there is room, its side effect done once and the file whole.
//
// The disk is made full with `PRAGMA max_page_count` on the runtime's own connection: the file may not grow past
// its current pages, and SQLite refuses a write that needs a new page with SQLITE_FULL "database or disk is full",
// as on a full disk. A ballast table takes the free pages first; rows that fit in a page's free room still go in, as
// on a nearly full disk. test/server/disk-full.int.test.ts fills a real tmpfs under a server process, where every
// write fails, the outcome's included.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Runtime, type RuntimeEvent } from "../../src/runtime/index.js";
import { runtimeInternals, runtimeSqlite } from "../../src/runtime/internals.js";

const GRAPH = fileURLToPath(new URL("../server/fixtures/disk-full-graph.ts", import.meta.url));

let dir: string;
let runtime: Runtime | undefined;
const events: RuntimeEvent[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "agentrt-diskfull-"));
  writeFileSync(join(dir, "langgraph.json"), JSON.stringify({ graphs: { disk_full: `${GRAPH}:graph` } }));
  process.env.DISK_FULL_EFFECTS = join(dir, "effects.log");
  process.env.DISK_FULL_SIGNALS = dir;
  events.length = 0;
});

afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

function open(): Runtime {
  runtime = Runtime.open({ db: join(dir, "agentrt.db"), config: join(dir, "langgraph.json"), onEvent: (e) => events.push(e) });
  return runtime;
}

/** No page beyond the file's current ones: the ballast takes the free ones, and any write that needs a new page fails. */
function fillDisk(rt: Runtime): void {
  runtimeSqlite(rt).exec("CREATE TABLE IF NOT EXISTS ballast (b BLOB)");
  runtimeSqlite(rt).pragma(`max_page_count = ${Number(runtimeSqlite(rt).pragma("page_count", { simple: true }))}`);
  const insert = runtimeSqlite(rt).prepare("INSERT INTO ballast (b) VALUES (zeroblob(1024))");
  try {
    for (;;) insert.run();
  } catch (error) {
    if ((error as { code?: unknown }).code !== "SQLITE_FULL") throw error;
  }
}

function freeSpace(rt: Runtime): void {
  runtimeSqlite(rt).pragma("max_page_count = 1073741823");
}

async function until(ok: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await ok())) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Starts the run, waits until its side effect is done and it holds, fills the disk and lets it go on. */
async function runIntoFullDisk(rt: Runtime): Promise<Promise<unknown>> {
  const submitted = rt.submit({ graph: "disk_full", message: "go", user: "alice" });
  // Observed (not awaited) until the test awaits it, so an early rejection is not unhandled.
  submitted.catch(() => undefined);
  await until(() => existsSync(join(dir, "holding")));
  fillDisk(rt);
  writeFileSync(join(dir, "go"), "");
  return submitted;
}

describe("a full disk mid-run, Runtime in-process", () => {
  it("goes RETRYING with STORAGE_FULL and a backoff, announced at once, and completes on the next attempt once there is room", async () => {
    const rt = open();
    const submitted = await runIntoFullDisk(rt);
    await until(() => events.some((e) => e.type === "storage_failed"));
    const stalled = events.find((e) => e.type === "storage_failed");
    expect(stalled).toMatchObject({ code: "STORAGE_FULL", message: expect.stringMatching(/database or disk is full/) });
    // The small write of the outcome still fits where the checkpoint did not: RETRYING with the reason, after a backoff.
    const view = (await submitted) as { run_id: string; status: string; error?: { code: string } };
    expect(view).toMatchObject({ run_id: (stalled as { runId: string }).runId, status: "RETRYING", error: { code: "STORAGE_FULL" } });
    const runId = view.run_id;
    expect((await runtimeInternals(rt).runs.get(runId)).availableAt).toBeGreaterThan((await runtimeInternals(rt).runs.get(runId)).updatedAt);

    freeSpace(rt);
    await rt.worker({ once: true, pollMs: 20 }).run();
    expect((await rt.get(runId)).status).toBe("SUCCEEDED");
    expect(readFileSync(join(dir, "effects.log"), "utf8")).toBe("hello\n");
    expect(runtimeSqlite(rt).pragma("integrity_check", { simple: true })).toBe("ok");
  });
});
