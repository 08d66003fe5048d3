/**
 * `list()` reads a page's rows and the `vals` of older inline holders in one snapshot: another connection's prune
 * (which moves still-named inline values to value rows and deletes their holders) or re-put (which rewrites a
 * holder's vals) committed between the two statements must not make a listed value vanish or swap.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { SqliteSaver } from "agentrt/checkpointers";
import { checkpoint } from "../conformance/saver.js";

const dir = mkdtempSync(join(tmpdir(), "agentrt-list-snapshot-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const input = { source: "input", step: -1, parents: {} } as const;
const loop = (step: number) => ({ source: "loop", step, parents: {} }) as const;
type Config = { configurable: Record<string, unknown> };
type Stubbable = { statements: { valsByIds: { all: (...args: unknown[]) => unknown } } };

/** Runs `write` (another connection's commit) just before `saver`'s next read of older holders' vals. */
function beforeHolderRead(saver: SqliteSaver, write: () => void): void {
  const statement = (saver as unknown as Stubbable).statements.valsByIds;
  const read = statement.all.bind(statement);
  let pending = true;
  statement.all = (...args: unknown[]) => {
    if (pending) {
      pending = false;
      write();
    }
    return read(...args);
  };
}

it("a prune committed by another connection in the middle of a page does not take a listed value away", async () => {
  const path = join(dir, "prune.db");
  const saver = SqliteSaver.create({ path });
  let config: Config = { configurable: { thread_id: "p" } };
  for (let step = 1; step <= 10; step++) {
    const versions = { stable: 1, counter: step };
    config = (await saver.put(config, checkpoint({ stable: "kept since step 1", counter: step }, versions), loop(step), step === 1 ? versions : { counter: step })) as Config;
  }
  const other = SqliteSaver.create({ path });
  let pruned = false;
  // prune's writes are synchronous up to its commit: it has committed when the call returns.
  beforeHolderRead(saver, () => void other.prune({ threadId: "p", keepLast: 3 }).then(() => (pruned = true)));
  const listed: unknown[] = [];
  for await (const tuple of saver.list({ configurable: { thread_id: "p" } }, { limit: 3 })) listed.push(tuple.checkpoint.channel_values);
  expect(listed).toEqual([10, 9, 8].map((counter) => ({ stable: "kept since step 1", counter })));
  await new Promise((resolve) => setImmediate(resolve));
  expect(pruned).toBe(true);
  // And after the prune, the kept checkpoints still read their value (moved out of the deleted holder).
  const after: unknown[] = [];
  for await (const tuple of saver.list({ configurable: { thread_id: "p" } })) after.push(tuple.checkpoint.channel_values);
  expect(after).toEqual([10, 9, 8].map((counter) => ({ stable: "kept since step 1", counter })));
  other.close();
  saver.close();
});

it("a holder put again by another connection in the middle of a page does not swap the listed values", async () => {
  const path = join(dir, "reput.db");
  const saver = SqliteSaver.create({ path });
  const first = (await saver.put({ configurable: { thread_id: "r" } }, checkpoint({ a: "a1", b: "b1" }, { a: 1, b: 1 }), input, { a: 1, b: 1 })) as Config;
  await saver.put(first, checkpoint({ a: "a1", b: "b1", c: 1 }, { a: 1, b: 1, c: 1 }), loop(0), { c: 1 });
  const other = SqliteSaver.create({ path });
  // The same checkpoint id, its values in the other order: index 0 of its vals now holds b.
  const again = checkpoint({ a: "a1", b: "b1" }, { a: 1, b: 1 });
  again.id = String(first.configurable.checkpoint_id);
  beforeHolderRead(saver, () => void other.put({ configurable: { thread_id: "r" } }, again, input, { b: 1, a: 1 }));
  const listed: unknown[] = [];
  for await (const tuple of saver.list({ configurable: { thread_id: "r" } }, { limit: 1 })) listed.push(tuple.checkpoint.channel_values);
  expect(listed).toEqual([{ a: "a1", b: "b1", c: 1 }]);
  other.close();
  saver.close();
});
