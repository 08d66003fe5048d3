// A SIGKILL after a planned call finished but before a call that refers to it did: the resume runs only the unfinished call.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteSaver } from "../../checkpointers/index.js";

const child = fileURLToPath(new URL("./fixtures/tool-dag-child.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "agentrt-tool-dag-resume-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const execLines = (db: string) => (existsSync(`${db}.exec`) ? readFileSync(`${db}.exec`, "utf8").trim().split("\n").map((l) => l.split(" ")[0]) : []);

/** Saved task results (`__return__` writes) of the thread's latest checkpoint, subtasks included, read from another connection. */
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

describe("planned tool calls across a crash", () => {
  it("after a SIGKILL while a dependent call runs, another process does not run the finished calls again", async () => {
    const db = join(dir, "agent.db");
    const thread = "tool-dag-1";
    const proc = spawn(process.execPath, ["--import", "tsx", child, db, thread, "run"], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => proc.once("exit", resolve));
    // Kill once track is running and the results of get_order and stock are saved.
    for (;;) {
      const state = await Promise.race([exited.then(() => "exited"), new Promise((r) => setTimeout(() => r("poll"), 50))]);
      if (state === "exited") throw new Error(`child exited early: ${stderr}`);
      if (execLines(db).includes("track-start") && (await savedReturns(db, thread)) >= 2) break;
    }
    proc.kill("SIGKILL");
    await exited;
    const first = execLines(db);
    expect(new Set(first)).toEqual(new Set(["get_order", "stock", "track-start"]));

    const resumed = spawnSync(process.execPath, ["--import", "tsx", child, db, thread, "resume"], { encoding: "utf8" });
    if (resumed.status !== 0) throw new Error(`resume failed (${resumed.status}): ${resumed.stderr}`);
    const out = JSON.parse(resumed.stdout.trim()) as { result: string; modelCalls: number };
    expect(execLines(db).slice(first.length)).toEqual(["track-start", "track"]);
    expect(out.result).toContain('"status":"held"');
    expect(out.result).toContain('"available":18');
    expect(out.modelCalls).toBe(2);
  });
});
