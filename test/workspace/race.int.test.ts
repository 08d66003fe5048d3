import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Workspace } from "../../src/workspace/workspace.js";

const child = fileURLToPath(new URL("./swap-dir-child.ts", import.meta.url));
// Before the fix every run of each test saw files land outside (writes: 5 to 10 per run) or read the outside
// file; the time cap keeps a slow, shared machine bounded.
const ATTEMPTS = 3_000;
const CAP_MS = 20_000;

let base: string;
let outside: string;
let swapper: ChildProcess | undefined;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "agentrt-ws-race-")));
  outside = join(base, "outside");
  mkdirSync(outside);
});
afterEach(() => {
  swapper?.kill("SIGKILL");
  swapper = undefined;
  rmSync(base, { recursive: true, force: true });
});

/** Starts a separate process flipping `<ws.dir>/a` between a real folder and a link to `outside`. */
async function startSwapper(ws: Workspace): Promise<void> {
  const proc = spawn(process.execPath, ["--import", "tsx", child, ws.dir, "a", outside], { stdio: ["ignore", "pipe", "inherit"] });
  swapper = proc;
  await new Promise<void>((resolve, reject) => {
    proc.stdout.once("data", () => resolve());
    proc.once("exit", (code) => reject(new Error(`swapper exited early with ${String(code)}`)));
  });
}

/** Kills the swapper, saying whether it was still running (a swapper that died early proves nothing). */
function stopSwapper(): string {
  const running = swapper !== undefined && swapper.exitCode === null && swapper.signalCode === null;
  swapper?.kill("SIGKILL");
  return running ? "was still swapping" : "had stopped";
}

async function attempt(times: number, body: (i: number) => Promise<void>): Promise<{ done: number; failed: number }> {
  const stop = Date.now() + CAP_MS;
  let done = 0;
  let failed = 0;
  for (let i = 0; i < times && Date.now() < stop; i++) {
    await body(i).then(() => done++, () => failed++);
  }
  return { done, failed };
}

describe("workspace against a directory swapped for a symbolic link by another process", () => {
  it("never writes outside the workspace", async () => {
    const ws = Workspace.forRun(join(base, "workspaces"), "run_1");
    await ws.write("keep.txt", "x");
    await startSwapper(ws);
    const result = await attempt(ATTEMPTS, (i) => ws.write(`a/f${i % 10}.txt`, "written").then(() => undefined));
    expect(stopSwapper()).toBe("was still swapping");
    expect(readdirSync(outside)).toEqual([]);
    // Writes while the folder is real must still go through, or the test proves nothing.
    expect(result.done).toBeGreaterThan(0);
  });

  it("never reads or lists outside the workspace", async () => {
    writeFileSync(join(outside, "f.txt"), "OUTSIDE SECRET");
    const ws = Workspace.forRun(join(base, "workspaces"), "run_1");
    await ws.write("a/f.txt", "inside");
    await startSwapper(ws);
    const seen = new Set<string>();
    const result = await attempt(ATTEMPTS, async (i) => {
      if (i % 2 === 0) seen.add(await ws.read("a/f.txt"));
      else for (const entry of await ws.list("a")) seen.add(entry.path);
    });
    expect(stopSwapper()).toBe("was still swapping");
    expect([...seen].filter((s) => s.includes("SECRET") || !/^(inside|a\/f\.txt)$/.test(s))).toEqual([]);
    expect(seen.has("inside")).toBe(true);
    expect(result.done).toBeGreaterThan(0);
  });
});
