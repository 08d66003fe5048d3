// The behaviour every agentrt checkpoint saver shares, whatever its database: run by
// test/checkpointers/sqlite/saver.test.ts and test/checkpointers/postgres/saver.test.ts.
import { HumanMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { Annotation, BaseCheckpointSaver, DeltaValue, END, MessagesDeltaValue, START, StateGraph, StateSchema } from "@langchain/langgraph";
import { uuid6, type Checkpoint } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";

/** A saver under test, with a row count of its own tables (`where` is SQL both dialects read) and its closing. */
export interface OpenedSaver {
  saver: BaseCheckpointSaver & { copyThread(from: string, to: string): void | Promise<void> };
  count(table: "checkpoints" | "checkpoint_blobs" | "checkpoint_writes", where?: string): Promise<number>;
  close(): Promise<void>;
}

/** A v4 checkpoint with a fresh id. */
export function checkpoint(values: Record<string, unknown>, versions: Record<string, number>): Checkpoint {
  return { v: 4, id: uuid6(0), ts: new Date().toISOString(), channel_values: values, channel_versions: versions, versions_seen: {} };
}

/** A one-node graph appending a message to a DeltaValue channel snapshotted every 2 updates (so history has seeds). */
export function deltaMessagesGraph(saver: BaseCheckpointSaver) {
  const messages = new DeltaValue(MessagesDeltaValue.valueSchema, {
    inputSchema: MessagesDeltaValue.inputSchema,
    reducer: MessagesDeltaValue.reducer,
    snapshotFrequency: 2,
  });
  return new StateGraph(new StateSchema({ messages }))
    .addNode("say", (state) => ({ messages: [new HumanMessage({ id: `m${state.messages.length}`, content: `hello ${state.messages.length}` })] }))
    .addEdge(START, "say")
    .addEdge("say", END)
    .compile({ checkpointer: saver });
}

/** Registers the shared behaviour tests of a saver; `open` gives each test an empty one. */
export function describeSaverConformance(name: string, open: () => Promise<OpenedSaver>): void {
  const withSaver = (test: (opened: OpenedSaver) => Promise<void>) => async () => {
    const opened = await open();
    try {
      await test(opened);
    } finally {
      await opened.close();
    }
  };

  describe(`${name} (saver conformance)`, () => {
    it(
      "stores an unchanged channel once, however many checkpoints reference it",
      withSaver(async ({ saver, count }) => {
        const big = "x".repeat(10_000);
        let config = { configurable: { thread_id: "t" } } as { configurable: Record<string, unknown> };
        for (let step = 1; step <= 10; step++) {
          const versions = { big: 1, counter: step };
          const changed = step === 1 ? versions : { counter: step };
          config = (await saver.put(config, checkpoint({ big, counter: step }, versions), { source: "loop", step, parents: {} }, changed)) as typeof config;
          expect((await saver.getTuple(config))?.checkpoint.channel_values).toEqual({ big, counter: step });
        }
        expect(await count("checkpoint_blobs", "channel = 'big'")).toBe(1);
        expect(await count("checkpoint_blobs", "channel = 'counter'")).toBe(10);
      }),
    );

    it(
      "filters list() by metadata in SQL, with before and limit",
      withSaver(async ({ saver }) => {
        const ids: string[] = [];
        for (let step = 0; step < 6; step++) {
          const cp = checkpoint({}, {});
          ids.push(cp.id);
          const metadata = { source: step % 2 === 0 ? "loop" : "update", step, parents: {}, user: { name: step < 3 ? "ann" : "bob" }, flag: step === 4 };
          await saver.put({ configurable: { thread_id: "f" } }, cp, metadata as never, {});
        }
        const list = async (filter: Record<string, unknown>, extra: { limit?: number; before?: string } = {}) => {
          const found: unknown[] = [];
          const before = extra.before === undefined ? undefined : { configurable: { checkpoint_id: extra.before } };
          for await (const tuple of saver.list({ configurable: { thread_id: "f" } }, { filter, limit: extra.limit, before })) found.push(tuple.metadata?.step);
          return found;
        };
        expect(await list({ source: "loop" })).toEqual([4, 2, 0]);
        expect(await list({ source: "loop", step: 2 })).toEqual([2]);
        expect(await list({ step: "2" })).toEqual([]);
        expect(await list({ user: { name: "bob" } })).toEqual([5, 4, 3]);
        expect(await list({ flag: true })).toEqual([4]);
        expect(await list({ missing: undefined }, { limit: 2 })).toEqual([5, 4]);
        expect(await list({}, { before: ids[3] })).toEqual([2, 1, 0]);
      }),
    );

    it(
      "deletes one thread and nothing else",
      withSaver(async ({ saver, count }) => {
        for (const thread of ["keep", "drop"]) {
          const config = await saver.put({ configurable: { thread_id: thread } }, checkpoint({ v: thread }, { v: 1 }), { source: "input", step: -1, parents: {} }, { v: 1 });
          await saver.putWrites(config, [["v", "w"]], "task");
        }
        await saver.deleteThread("drop");
        for (const table of ["checkpoints", "checkpoint_blobs", "checkpoint_writes"] as const) {
          expect(await count(table, "thread_id = 'drop'")).toBe(0);
          expect(await count(table, "thread_id = 'keep'")).toBe(1);
        }
      }),
    );

    it(
      "copies a thread's checkpoints, values and pending writes to a new thread id",
      withSaver(async ({ saver, count }) => {
        const config = await saver.put({ configurable: { thread_id: "src" } }, checkpoint({ v: "x" }, { v: 1 }), { source: "input", step: -1, parents: {} }, { v: 1 });
        await saver.putWrites(config, [["v", "w"]], "task");
        await saver.copyThread("src", "dst");
        const [original, copy] = await Promise.all([saver.getTuple({ configurable: { thread_id: "src" } }), saver.getTuple({ configurable: { thread_id: "dst" } })]);
        expect(copy?.checkpoint).toEqual(original?.checkpoint);
        expect(copy?.pendingWrites).toEqual(original?.pendingWrites);
        expect(copy?.config.configurable?.thread_id).toBe("dst");
        // A second copy onto the same id is refused whole: nothing half-copied.
        await expect(Promise.resolve().then(() => saver.copyThread("src", "dst"))).rejects.toThrow();
        for (const table of ["checkpoints", "checkpoint_blobs", "checkpoint_writes"] as const) expect(await count(table, "thread_id = 'dst'")).toBe(1);
      }),
    );

    it(
      "rebuilds MessagesDeltaValue state from SQL history, identical to the base walk",
      withSaver(async ({ saver }) => {
        const graph = deltaMessagesGraph(saver);
        const config = { configurable: { thread_id: "d" } };
        const expected = [0, 1, 2, 3, 4, 5, 6].map((i) => `hello ${i}`);
        for (let turn = 0; turn < expected.length; turn++) await graph.invoke({ messages: [] }, config);
        const state = await graph.getState(config);
        expect(state.values.messages.map((m: HumanMessage) => m.content)).toEqual(expected);
        const latest = (await saver.getTuple(config))!.config;
        const ours = await saver.getDeltaChannelHistory({ config: latest, channels: ["messages"] });
        const walked = await BaseCheckpointSaver.prototype.getDeltaChannelHistory.call(saver, { config: latest, channels: ["messages"] });
        expect(ours).toEqual(walked);
        expect(ours.messages?.writes.length).toBeGreaterThan(0);
      }),
    );

    it(
      "keeps a forked branch and the original apart (versions never collide)",
      withSaver(async ({ saver }) => {
        const State = Annotation.Root({ items: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }) });
        const graph = new StateGraph(State)
          .addNode("add", () => ({ items: ["node"] }))
          .addEdge(START, "add")
          .addEdge("add", END)
          .compile({ checkpointer: saver });
        const config = { configurable: { thread_id: "fork" } };
        await graph.invoke({ items: ["first"] }, config);
        await graph.invoke({ items: ["second"] }, config);
        const original = await graph.getState(config);
        expect(original.values.items).toEqual(["first", "node", "second", "node"]);
        // Fork from step 0 (items = ["first"]): with counter versions the fork's next "items" version
        // would be the one the original branch used for ["first", "node"], and the fork would read that.
        let stepZero: RunnableConfig | undefined;
        for await (const snapshot of graph.getStateHistory(config)) if (snapshot.metadata?.step === 0) stepZero = snapshot.config;
        const forked = await graph.updateState(stepZero!, { items: ["forked"] });
        expect((await graph.getState(forked)).values.items).toEqual(["first", "forked"]);
        expect((await graph.getState(original.config)).values.items).toEqual(["first", "node", "second", "node"]);
      }),
    );
  });
}
