/**
 * Reads for agentrt's own checks (state-check.ts) through the SQLite saver's read-only view: they see what getState
 * sees, share only append-only message lists with the cache, and nothing a user or a graph changes reaches the cache.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { Command, DeltaValue, END, MemorySaver, START, StateGraph, StateSchema, interrupt, messagesDeltaReducer } from "@langchain/langgraph";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { SqliteSaver } from "../../checkpointers/index.js";
import { ReadOnlyViewError } from "../../checkpointers/shared/read-only-checkpoints.js";
import { appendOnlyChannels, stateForCheck, tasksForCheck } from "../../src/runtime/state-check.js";

interface Note {
  turn: number;
  text?: string;
}

/** A delta channel whose reducer changes its accumulator in place: it must never be handed a cached value. */
const pushInPlace = (current: Note[], writes: (Note | Note[])[]): Note[] => {
  current.push(...writes.flat());
  return current;
};

const State = new StateSchema({
  messages: new DeltaValue(z.array(z.custom<BaseMessage>()), { reducer: messagesDeltaReducer, snapshotFrequency: 3 }),
  notes: new DeltaValue(z.array(z.custom<Note>()), { inputSchema: z.custom<Note | Note[]>(), reducer: pushInPlace, snapshotFrequency: 3 }),
});

const LONG = "a line long enough that the history is cached as decoded values. ".repeat(4);

/** A turn: `reply` answers and notes the turn, `gate` waits for a person (interrupt), then the turn ends. */
function buildGraph(checkpointer: SqliteSaver | MemorySaver, mutate = false) {
  return new StateGraph(State)
    .addNode("reply", (state) => {
      if (mutate) {
        // A node changing what it was given, as the HITL middleware does: only its own copy may change.
        const first = state.messages[0];
        if (first !== undefined) first.content = "changed by the graph";
        state.messages.push(new AIMessage("pushed by the graph"));
        state.notes.push({ turn: -1 });
      }
      return { messages: [new AIMessage({ content: `${LONG} reply ${state.messages.length}`, id: `ai-${state.messages.length}` })], notes: { turn: state.notes.length, text: LONG } };
    })
    .addNode("gate", () => {
      interrupt({ question: "go on?" });
      return {};
    })
    .addEdge(START, "reply")
    .addEdge("reply", "gate")
    .addEdge("gate", END)
    .compile({ checkpointer });
}

let dir: string;
let saver: SqliteSaver;
const config = { configurable: { thread_id: "t" } };

async function turns(graph: ReturnType<typeof buildGraph>, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    if (i > 0) await graph.invoke(new Command({ resume: "yes" }), config);
    await graph.invoke({ messages: [new HumanMessage({ content: `${LONG} turn ${i}`, id: `human-${i}` })] }, config);
  }
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agentrt-state-check-"));
  saver = SqliteSaver.fromConnString(join(dir, "threads.db"));
});

afterEach(() => {
  saver.close();
  rmSync(dir, { recursive: true, force: true });
});

const texts = (messages: BaseMessage[]) => messages.map((m) => m.content);

describe("state read for checks", () => {
  it("shares only messagesDeltaReducer channels", () => {
    expect([...appendOnlyChannels(buildGraph(saver))]).toEqual(["messages"]);
  });

  it("sees what getState sees: values, tasks, next and interrupts", async () => {
    const graph = buildGraph(saver);
    await turns(graph, 6);
    const user = await graph.getState(config);
    for (let i = 0; i < 3; i++) {
      const checked = await stateForCheck(graph, config);
      expect(checked.values).toEqual(user.values);
      expect(checked.tasks).toEqual(user.tasks);
      expect(checked.next).toEqual(user.next);
      const tasks = await tasksForCheck(graph, config);
      expect(tasks.tasks).toEqual(user.tasks);
      expect(tasks.next).toEqual(["gate"]);
      expect(tasks.tasks[0]?.interrupts[0]?.value).toEqual({ question: "go on?" });
      expect(tasks.createdAt).toBe(user.createdAt);
      expect(tasks.metadata).toEqual(user.metadata);
    }
    // At every checkpoint of the thread, a tasks check (no delta channel's history read) plans what getState plans.
    for await (const snapshot of graph.getStateHistory(config)) {
      const at = { configurable: { ...snapshot.config.configurable } };
      const tasks = await tasksForCheck(graph, at);
      expect(tasks.tasks).toEqual(snapshot.tasks);
      expect(tasks.next).toEqual(snapshot.next);
    }
  });

  it("hands checks the cached messages, users their own copies; a tasks check reads no message history", async () => {
    const graph = buildGraph(saver);
    await turns(graph, 6);
    // Reads that put the history and the latest checkpoint into the caches.
    await graph.getState(config);
    await graph.getState(config);
    const a = await stateForCheck(graph, config);
    const b = await stateForCheck(graph, config);
    const [first, second] = [a.values.messages as BaseMessage[], b.values.messages as BaseMessage[]];
    expect(first.length).toBeGreaterThan(6);
    expect(second[0]).toBe(first[0]);
    // A reducer that changes its accumulator gets a copy on every read.
    expect(b.values.notes).not.toBe(a.values.notes);
    const user = (await graph.getState(config)).values.messages as BaseMessage[];
    expect(user[0]).not.toBe(first[0]);
    expect(user[0]).toEqual(first[0]);

    const checkpoints: { configurable: Record<string, unknown> }[] = [];
    for await (const snapshot of graph.getStateHistory(config)) checkpoints.push({ configurable: { ...snapshot.config.configurable } });
    // Every history read of the saver, through its view or not, goes through its reads' history.
    const reads = (saver as unknown as { reads: { history: (c: unknown, channels: string[]) => unknown } }).reads;
    const view = vi.spyOn(reads, "history");
    const channelsRead = () => view.mock.calls.flatMap(([, channels]) => channels);
    for (const at of checkpoints) await stateForCheck(graph, at);
    // The history of messages is read where the checkpoint holds no snapshot of them...
    expect(channelsRead()).toContain("messages");
    view.mockClear();
    for (const at of checkpoints) await tasksForCheck(graph, at);
    // ...but no delta channel's history for a check of tasks.
    expect(channelsRead()).toEqual([]);
  });

  it("keeps the cache intact when a user changes what getState returned", async () => {
    const graph = buildGraph(saver);
    await turns(graph, 6);
    const before = await graph.getState(config);
    const expected = { messages: texts(before.values.messages as BaseMessage[]), notes: structuredClone(before.values.notes) };
    for (let i = 0; i < 3; i++) {
      const state = await graph.getState(config);
      const messages = state.values.messages as BaseMessage[];
      for (const message of messages) message.content = "changed by a user";
      messages.push(new AIMessage("pushed by a user"));
      (state.values.notes as Note[]).push({ turn: 99 });
      (state.tasks[0]?.interrupts[0]?.value as { question: string }).question = "changed";
    }
    for (const read of [await stateForCheck(graph, config), await graph.getState(config)]) {
      expect(texts(read.values.messages as BaseMessage[])).toEqual(expected.messages);
      expect(read.values.notes).toEqual(expected.notes);
      expect(read.tasks[0]?.interrupts[0]?.value).toEqual({ question: "go on?" });
    }
  });

  it("keeps the cache intact when a graph changes its state, and copies an in-place reducer's seed", async () => {
    const graph = buildGraph(saver);
    await turns(graph, 6);
    for (let i = 0; i < 3; i++) await stateForCheck(graph, config);
    const before = await graph.getState(config);
    const at = { configurable: { ...before.config.configurable } };
    const expected = { messages: texts(before.values.messages as BaseMessage[]), notes: structuredClone(before.values.notes) };
    const mutating = buildGraph(saver, true);
    await mutating.invoke(new Command({ resume: "yes" }), config);
    await mutating.invoke({ messages: [new HumanMessage({ content: "one more", id: "human-last" })] }, config);
    for (const read of [await stateForCheck(mutating, at), await graph.getState(at), await stateForCheck(graph, at)]) {
      expect(texts(read.values.messages as BaseMessage[])).toEqual(expected.messages);
      expect(read.values.notes).toEqual(expected.notes);
    }
  });

  it("copies the values of a reducer that changes its accumulator, at every checkpoint", async () => {
    const graph = buildGraph(saver);
    await turns(graph, 6);
    const expected: [{ configurable: Record<string, unknown> }, unknown][] = [];
    for await (const snapshot of graph.getStateHistory(config)) expected.push([{ configurable: { ...snapshot.config.configurable } }, structuredClone(snapshot.values.notes)]);
    for (let i = 0; i < 3; i++) for (const [at] of expected) await stateForCheck(graph, at);
    for (const [at, notes] of expected) {
      expect((await graph.getState(at)).values.notes).toEqual(notes);
      expect((await stateForCheck(graph, at)).values.notes).toEqual(notes);
    }
  });

  it("reads through a checkpointer without a view as getState does", async () => {
    const graph = buildGraph(new MemorySaver());
    await turns(graph, 2);
    const user = await graph.getState(config);
    expect((await stateForCheck(graph, config)).values).toEqual(user.values);
    expect((await tasksForCheck(graph, config)).tasks).toEqual(user.tasks);
  });

  it("refuses writes through the view", async () => {
    const view = saver.readOnlyView({ shared: new Set(["messages"]) });
    await expect(view.putWrites({ configurable: { thread_id: "t", checkpoint_id: "c" } }, [], "task")).rejects.toBeInstanceOf(ReadOnlyViewError);
    await expect(view.deleteThread("t")).rejects.toBeInstanceOf(ReadOnlyViewError);
  });
});
