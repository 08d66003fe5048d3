import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteSaver } from "agentrt/checkpointers";
import { databaseBytes, runMessageThread } from "../../../bench/_delta-thread.js";

const dir = mkdtempSync(join(tmpdir(), "agentrt-saver-bytes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("SqliteSaver storage", () => {
  it("stores a 200-step MessagesDeltaValue thread in at most 3x its message bytes (file + WAL)", async () => {
    const path = join(dir, "delta.db");
    const saver = SqliteSaver.create({ path });
    const messageBytes = await runMessageThread(saver, { delta: true });
    saver.close();
    const ratio = databaseBytes(path) / messageBytes;
    expect(ratio).toBeLessThanOrEqual(3);
    // And the thread is still whole after reopening.
    const reopened = SqliteSaver.create({ path });
    const tuple = await reopened.getTuple({ configurable: { thread_id: "delta-thread" } });
    expect(tuple?.metadata?.step).toBe(200);
    reopened.close();
  });
});
