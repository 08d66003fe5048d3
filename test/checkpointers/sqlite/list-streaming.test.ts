import { uuid6 } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { SqliteSaver } from "agentrt/checkpointers";

const TOTAL = 10_000;

describe("SqliteSaver.list streaming", () => {
  it("yields the first rows of a 10,000-checkpoint thread before reading the rest, letting the event loop run", async () => {
    const saver = SqliteSaver.create({ path: ":memory:" });
    const insert = saver.db.transaction(() => {
      const row = saver.db.prepare(
        "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata_type, metadata) VALUES ('big', '', ?, NULL, ?, 'json', ?)",
      );
      for (let step = 0; step < TOTAL; step++) {
        const id = uuid6(step);
        row.run(id, JSON.stringify({ v: 4, id, ts: "", channel_versions: {}, versions_seen: {} }), JSON.stringify({ source: "loop", step, parents: {} }));
      }
    });
    insert();

    let ticks = 0;
    let ticking = true;
    const tick = () => {
      ticks += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);

    let seen = 0;
    let ticksAtFirst = -1;
    for await (const tuple of saver.list({ configurable: { thread_id: "big" } })) {
      if (seen === 0) {
        ticksAtFirst = ticks;
        // Once the first row is out, drop the older half of the thread: a list() that had already
        // read all 10,000 rows would still yield them; a streaming one never sees them.
        saver.db.prepare("DELETE FROM checkpoints WHERE thread_id = 'big' AND json_extract(metadata, '$.step') < ?").run(TOTAL / 2);
      }
      expect(tuple.metadata?.step).toBe(TOTAL - 1 - seen);
      seen += 1;
    }
    ticking = false;

    expect(seen).toBe(TOTAL / 2);
    expect(ticksAtFirst).toBeLessThanOrEqual(1);
    // The setImmediate loop kept running while the list was consumed: the event loop was never held for the whole read.
    expect(ticks - ticksAtFirst).toBeGreaterThanOrEqual(TOTAL / 2 / 256 - 2);
    saver.close();
  });

  it("lets the caller write to the saver between rows", async () => {
    const saver = SqliteSaver.create({ path: ":memory:" });
    for (let step = 0; step < 40; step++) {
      await saver.put({ configurable: { thread_id: "rw" } }, { v: 4, id: uuid6(step), ts: "", channel_values: {}, channel_versions: {}, versions_seen: {} }, { source: "loop", step, parents: {} }, {});
    }
    let seen = 0;
    for await (const tuple of saver.list({ configurable: { thread_id: "rw" } })) {
      await saver.putWrites(tuple.config, [["note", seen]], "reader");
      seen += 1;
    }
    expect(seen).toBe(40);
    saver.close();
  });
});
