import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteSaver } from "../../../checkpointers/index.js";

const child = fileURLToPath(new URL("./fixtures/resume-child.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "agentrt-dag-resume-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const execLines = (db: string) => (existsSync(`${db}.exec`) ? readFileSync(`${db}.exec`, "utf8").trim().split("\n") : []);

/** Saved task results (`__return__` writes) of the thread's latest checkpoint, read from another connection. */
async function savedReturns(db: string, thread: string): Promise<number> {
  if (!existsSync(db)) return 0;
  const saver = SqliteSaver.create({ path: db });
  try {
    const tuple = await saver.getTuple({ configurable: { thread_id: thread } });
    return (tuple?.pendingWrites ?? []).filter(([, channel]) => channel === "__return__").length;
  } finally {
    saver.close();
  }
}

describe("declared DAG resume across processes", () => {
  it("after a SIGKILL mid-DAG, another process re-runs only the unfinished nodes, whatever order the others finished in", async () => {
    const db = join(dir, "dag.db");
    const thread = "dag-1";
    const proc = spawn(process.execPath, ["--import", "tsx", child, db, thread, "run"], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => proc.once("exit", resolve));
    // Kill once `gate` runs and the seven nodes that can finish have their results saved.
    for (;;) {
      const state = await Promise.race([exited.then(() => "exited"), new Promise((r) => setTimeout(() => r("poll"), 50))]);
      if (state === "exited") throw new Error(`child exited early: ${stderr}`);
      if (execLines(db).some((l) => l.startsWith("gate-start")) && (await savedReturns(db, thread)) >= 7) break;
    }
    proc.kill("SIGKILL");
    await exited;

    const first = execLines(db).map((l) => l.split(" ")[0]);
    const finished = first.filter((n) => n !== "gate-start");
    expect(new Set(finished)).toEqual(new Set(["p1", "p2", "p3", "p4", "q", "r", "solo"]));
    // Finish order differs from the order the tasks were called in (p1 → p4): p4 finished before p1.
    expect(finished.indexOf("p4")).toBeLessThan(finished.indexOf("p1"));
    expect(finished.indexOf("p3")).toBeLessThan(finished.indexOf("p2"));

    const resumed = spawnSync(process.execPath, ["--import", "tsx", child, db, thread, "resume"], { encoding: "utf8" });
    if (resumed.status !== 0) throw new Error(`resume failed (${resumed.status}): ${resumed.stderr}`);
    const out = JSON.parse(resumed.stdout.trim()) as { sum: number; trail: string[] };
    const second = execLines(db).slice(first.length).map((l) => l.split(" ")[0]);
    expect(second).toEqual(["gate-start", "gate", "late"]);
    expect(out.sum).toBe(511);
    expect(out.trail).toEqual(["p1", "p2", "p3", "p4", "solo", "q", "r", "gate", "late"]);
  });
});
