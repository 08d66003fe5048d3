// A SIGKILL after a planned call finished but before a call that refers to it did: the resume runs only the unfinished call.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { execLog, killWhen, resumeInNewProcess, savedReturns } from "../../helpers/kill-mid-run.js";

const child = fileURLToPath(new URL("./fixtures/tool-dag-child.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "agentrt-tool-dag-resume-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("planned tool calls across a crash", () => {
  it("after a SIGKILL while a dependent call runs, another process does not run the finished calls again", async () => {
    const db = join(dir, "agent.db");
    const thread = "tool-dag-1";
    // Kill once track is running and the results of get_order and stock are saved.
    await killWhen(child, db, thread, async () => execLog(db).includes("track-start") && (await savedReturns(db, thread)) >= 2);
    const first = execLog(db);
    expect(new Set(first)).toEqual(new Set(["get_order", "stock", "track-start"]));

    const out = resumeInNewProcess<{ result: string; modelCalls: number }>(child, db, thread);
    expect(execLog(db).slice(first.length)).toEqual(["track-start", "track"]);
    expect(out.result).toContain('"status":"held"');
    expect(out.result).toContain('"available":18');
    expect(out.modelCalls).toBe(2);
  });
});
