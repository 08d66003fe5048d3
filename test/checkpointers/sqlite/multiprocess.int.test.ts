import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteSaver } from "agentrt/checkpointers";
import { expectedPayload } from "./fixtures/put-loop-data.js";

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "agentrt-saver-mp-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runChild(args: string[]) {
  const result = spawnSync(process.execPath, ["--import", "tsx", fixture("approval-graph.ts"), ...args], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`child failed (${result.status}): ${result.stderr}`);
  return JSON.parse(result.stdout.trim()) as { pid: number; log: string[]; decision: string | null; next: string[]; interrupts: unknown[] };
}

describe("SqliteSaver across processes", () => {
  it("resumes in process B a thread that process A left at an interrupt()", () => {
    const db = join(dir, "approval.db");
    const a = runChild([db, "thread-1", "run"]);
    expect(a.next).toEqual(["approve"]);
    expect(a.interrupts).toEqual([{ question: "roll back payments?" }]);
    expect(a.decision).toBeNull();

    const b = runChild([db, "thread-1", "resume", "approved"]);
    expect(b.pid).not.toBe(a.pid);
    expect(b.decision).toBe("approved");
    expect(b.next).toEqual([]);
    expect(b.log).toEqual([`prepared by ${a.pid}`, `decided approved in ${b.pid}`, `finished (approved) in ${b.pid}`]);
    // The node before the interrupt ran once, in A; B resumed from the checkpoint instead of redoing it.
    expect(readFileSync(`${db}.prepare-runs`, "utf8").trim().split("\n")).toEqual([String(a.pid)]);
  });

  it("leaves only whole checkpoints when a writer is SIGKILLed mid-put", async () => {
    const db = join(dir, "killed.db");
    const child = spawn(process.execPath, ["--import", "tsx", fixture("put-loop.ts"), db, "loop"], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    // Kill once the child has done 200+ puts: it is then inside its loop, between or during transactions.
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        if (chunk.toString().split("\n").some((line) => Number(line) >= 200)) resolve();
      });
      child.on("exit", (code) => reject(new Error(`child exited early (${code}): ${stderr}`)));
    });
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));

    const saver = SqliteSaver.fromConnString(db);
    try {
      const latest = await saver.getTuple({ configurable: { thread_id: "loop" } });
      expect(latest).toBeDefined();
      let count = 0;
      for await (const tuple of saver.list({ configurable: { thread_id: "loop" } })) {
        const step = tuple.metadata?.step ?? -1;
        expect(tuple.checkpoint.channel_values).toEqual({ payload: expectedPayload(step), step, tail: `end-${step}` });
        count += 1;
      }
      expect(count).toBeGreaterThanOrEqual(200);
      // Every checkpoint but possibly the newest has its writes; writes are never partial.
      const writeCounts = saver.db
        .prepare("SELECT checkpoint_id, count(*) AS n FROM checkpoint_writes WHERE thread_id = 'loop' GROUP BY checkpoint_id")
        .all() as { n: number }[];
      expect(writeCounts.every((row) => row.n === 2)).toBe(true);
      expect(writeCounts.length).toBeGreaterThanOrEqual(count - 1);
    } finally {
      saver.close();
    }
  });
});
