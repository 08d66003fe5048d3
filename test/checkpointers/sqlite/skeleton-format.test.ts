import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { emptyCheckpoint, type CheckpointTuple } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { SqliteSaver } from "agentrt/checkpointers";
import { openDatabase } from "../../../src/db/index.js";
import { StorageError } from "../../../src/errors.js";

const V0 = fileURLToPath(new URL("../../fixtures/historical/runs-v1-paused.sqlite", import.meta.url));

async function all(saver: SqliteSaver, threadId: string): Promise<CheckpointTuple[]> {
  const tuples: CheckpointTuple[] = [];
  for await (const tuple of saver.list({ configurable: { thread_id: threadId } })) tuples.push(tuple);
  return tuples;
}

describe("the checkpoint skeleton's format version", () => {
  it("is written as $v 1 and not seen by LangGraph", async () => {
    const db = openDatabase(":memory:");
    const saver = new SqliteSaver(db);
    const checkpoint = { ...emptyCheckpoint(), channel_values: { messages: ["hi"] }, channel_versions: { messages: 1 } };
    await saver.put({ configurable: { thread_id: "t" } }, checkpoint, { source: "input", step: -1, parents: {} }, { messages: 1 });
    const stored = JSON.parse((db.prepare("SELECT checkpoint FROM checkpoints").get() as { checkpoint: string }).checkpoint) as Record<string, unknown>;
    expect(stored).toMatchObject({ $v: 1, id: checkpoint.id, channel_versions: { messages: 1 } });
    const read = await saver.getTuple({ configurable: { thread_id: "t" } });
    expect(read?.checkpoint).toEqual(checkpoint);
    expect(read?.checkpoint).not.toHaveProperty("$v");
    db.close();
  });

  it("reads version-0 skeletons (a paused graph's, written before versions) by their own schema", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentrt-skeleton-")), "v0.sqlite");
    copyFileSync(V0, path);
    const db = openDatabase(path);
    const thread = (db.prepare("SELECT thread_id FROM runs").get() as { thread_id: string }).thread_id;
    const raw = db.prepare("SELECT checkpoint FROM checkpoints").all() as { checkpoint: string }[];
    expect(raw.every((row) => !("$v" in (JSON.parse(row.checkpoint) as object)))).toBe(true);
    const saver = new SqliteSaver(db);
    const tuples = await all(saver, thread);
    expect(tuples).toHaveLength(raw.length);
    expect(tuples[0]?.checkpoint.channel_values).toHaveProperty("turns", 3);
    db.close();
  });

  it("refuses a skeleton of a newer format as DB_SCHEMA_TOO_NEW and a malformed one as DB_CORRUPT", async () => {
    const db = openDatabase(":memory:");
    const saver = new SqliteSaver(db);
    await saver.put({ configurable: { thread_id: "t" } }, emptyCheckpoint(), { source: "input", step: -1, parents: {} }, {});
    db.prepare("UPDATE checkpoints SET checkpoint = json_set(checkpoint, '$.\"$v\"', 2)").run();
    const tooNew = await saver.getTuple({ configurable: { thread_id: "t" } }).catch((error: unknown) => error);
    expect(tooNew).toBeInstanceOf(StorageError);
    expect(tooNew).toMatchObject({ code: "DB_SCHEMA_TOO_NEW", details: { version: 2, known: 1 } });
    db.prepare("UPDATE checkpoints SET checkpoint = json_set(checkpoint, '$.\"$v\"', 1, '$.channel_versions', json('[1]'))").run();
    const corrupt = await all(saver, "t").catch((error: unknown) => error);
    expect(corrupt).toMatchObject({ code: "DB_CORRUPT" });
    db.close();
  });
});

describe("the codec format of stored values", () => {
  it("refuses a value marked with a later codec format instead of handing its bytes to the serde", async () => {
    const db = openDatabase(":memory:");
    const saver = new SqliteSaver(db);
    // Over the inline limit: a value row, whose type carries its codec format (an inline value is always format 1 JSON).
    const checkpoint = { ...emptyCheckpoint(), channel_values: { notes: { long: "x".repeat(3000) } }, channel_versions: { notes: 1 } };
    await saver.put({ configurable: { thread_id: "t" } }, checkpoint, { source: "input", step: -1, parents: {} }, { notes: 1 });
    db.prepare("UPDATE checkpoint_blobs SET type = 'f2:' || type").run();
    const refused = await saver.getTuple({ configurable: { thread_id: "t" } }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "DB_SCHEMA_TOO_NEW", details: { version: 2, known: 1 } });
    db.close();
  });
});
