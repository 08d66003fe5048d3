import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { SqliteSaver as OfficialSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteSaver } from "agentrt/checkpointers";
import { StorageError } from "../../../src/errors.js";

const dir = mkdtempSync(join(tmpdir(), "agentrt-saver-bad-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function openError(path: string): StorageError {
  try {
    SqliteSaver.fromConnString(path).close();
  } catch (error) {
    expect(error).toBeInstanceOf(StorageError);
    expect((error as Error).message).toContain(path);
    return error as StorageError;
  }
  throw new Error(`opening ${path} should have failed`);
}

describe("SqliteSaver on bad input", () => {
  it("refuses a file that is not SQLite", () => {
    const path = join(dir, "junk.db");
    writeFileSync(path, "not a database ".repeat(100));
    expect(openError(path).code).toBe("DB_CORRUPT");
  });

  it("refuses a database another program made (the official saver's tables)", async () => {
    const path = join(dir, "official.db");
    const db = new Database(path);
    const official = new OfficialSaver(db);
    await official.getTuple({ configurable: { thread_id: "x" } });
    db.close();
    expect(openError(path).code).toBe("DB_CORRUPT");
  });

  it("names the file when its directory is missing", () => {
    expect(openError(join(dir, "no-such-dir", "a.db")).code).toBe("DB_OPEN_FAILED");
  });

  it("names the file on a path it cannot write", () => {
    // /proc is read-only even for root, unlike a chmod-ed directory.
    const error = openError("/proc/self/agentrt-checkpoints.db");
    expect(["DB_READ_ONLY", "DB_OPEN_FAILED"]).toContain(error.code);
  });

  it("opens read-only for reads and refuses writes with a StorageError naming the file", async () => {
    const path = join(dir, "ro.db");
    const writer = SqliteSaver.create({ path });
    const config = await writer.put({ configurable: { thread_id: "t" } }, { v: 4, id: "1", ts: "", channel_values: { a: 1 }, channel_versions: { a: 1 }, versions_seen: {} }, { source: "input", step: -1, parents: {} }, { a: 1 });
    writer.close();
    const reader = SqliteSaver.create({ path, readonly: true });
    expect((await reader.getTuple(config))?.checkpoint.channel_values).toEqual({ a: 1 });
    await expect(reader.putWrites(config, [["a", 2]], "task")).rejects.toThrow(StorageError);
    await expect(reader.putWrites(config, [["a", 2]], "task")).rejects.toThrow(path);
    reader.close();
  });

  it("refuses a checkpoint table set newer than this code", () => {
    const path = join(dir, "future.db");
    SqliteSaver.fromConnString(path).close();
    const db = new Database(path);
    db.prepare("UPDATE agentrt_schema SET version = 99 WHERE module = 'checkpoints'").run();
    db.close();
    expect(openError(path).code).toBe("DB_SCHEMA_TOO_NEW");
  });
});
