import { uuid6 } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { SqliteSaver } from "agentrt/checkpointers";
import { compareCodePoints } from "../../../checkpointers/sqlite/tuple.js";

describe("pending writes order", () => {
  it("follows SQLite's BINARY collation (code points), also for characters above U+FFFF", async () => {
    const saver = SqliteSaver.create({ path: ":memory:" });
    const config = await saver.put(
      { configurable: { thread_id: "o" } },
      { v: 4, id: uuid6(0), ts: new Date().toISOString(), channel_values: {}, channel_versions: {}, versions_seen: {} },
      { source: "loop", step: 0, parents: {} },
      {},
    );
    const paths = ["b", "\u{1F600}", "\uFFFF", "a", "\uE000x", ""];
    for (const [i, path] of paths.entries()) await saver.putWrites(config, [["c", i]], `task-${i}`, path);
    const sqlOrder = saver.db.prepare("SELECT task_path FROM checkpoint_writes ORDER BY task_path").pluck().all();
    const tuple = await saver.getTuple({ configurable: { thread_id: "o" } });
    expect(tuple?.pendingWrites?.map(([, , value]) => paths[value as number])).toEqual(sqlOrder);
    const listed: unknown[] = [];
    for await (const item of saver.list({ configurable: { thread_id: "o" } })) listed.push(...(item.pendingWrites ?? []).map(([, , value]) => paths[value as number]));
    expect(listed).toEqual(sqlOrder);
    expect([...paths].sort(compareCodePoints)).toEqual(sqlOrder);
    saver.close();
  });
});
