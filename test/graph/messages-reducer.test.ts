import { AIMessage, AIMessageChunk, HumanMessage, RemoveMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { END, MemorySaver, REMOVE_ALL_MESSAGES, START, StateGraph, messagesDeltaReducer } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { messagesReducer } from "../../src/graph/messages-reducer.js";
import { AgentState } from "../../src/graph/state.js";
import { appendOnlyChannels } from "../../src/runtime/state-check.js";

/** A deterministic pseudo-random source, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

/** A list's items as comparable values: an input by its place among the inputs, a coerced message by its fields. */
function shape(list: readonly unknown[], inputs: Map<unknown, number>): unknown[] {
  return list.map((item) => {
    const known = inputs.get(item);
    if (known !== undefined) return known;
    const message = item as BaseMessage;
    return [message.getType(), message.content, message.id ?? null];
  });
}

describe("messagesReducer", () => {
  it("gives LangGraph's messagesDeltaReducer result on random lists and writes (ids, duplicates, removals, coercion)", () => {
    const next = random(21);
    const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
    let scanned = 0;
    for (let round = 0; round < 400; round++) {
      const ids = Array.from({ length: 12 }, (_, i) => `m${round}-${i}`);
      const state: BaseMessage[] = Array.from({ length: Math.floor(next() * 40) }, (_, i) => {
        const id = next() < 0.1 ? undefined : pick(ids);
        return pick([
          () => new HumanMessage({ content: `h${i}`, id }),
          () => new AIMessage({ content: `a${i}`, id }),
          () => new ToolMessage({ content: `t${i}`, tool_call_id: "c", id }),
        ])();
      });
      const special = next() < 0.3;
      const writes: unknown[] = Array.from({ length: 1 + Math.floor(next() * 4) }, () => {
        const items = Array.from({ length: next() < 0.05 ? 70 : next() < 0.1 ? 20 : 1 + Math.floor(next() * 3) }, (_, i) => {
          const id = next() < 0.15 ? undefined : next() < 0.5 ? pick(ids) : `new-${round}-${i}-${next()}`;
          if (!special) return new AIMessage({ content: `w${i}`, id });
          return pick<() => unknown>([
            () => new AIMessage({ content: `w${i}`, id }),
            () => new RemoveMessage({ id: pick(ids) }),
            () => new RemoveMessage({ id: REMOVE_ALL_MESSAGES }),
            () => ({ role: "user", content: `plain${i}`, id }),
            () => `text${i}`,
            () => new AIMessageChunk({ content: `chunk${i}`, id }),
          ])();
        });
        return items.length === 1 && next() < 0.5 ? items[0] : items;
      });
      const inputs = new Map<unknown, number>();
      for (const item of [...state, ...writes.flatMap((w) => (Array.isArray(w) ? w : [w]))]) if (!inputs.has(item)) inputs.set(item, inputs.size);
      const before = [...state];
      const call = (reducer: typeof messagesReducer): unknown => {
        try {
          return shape(reducer(state, writes), inputs);
        } catch (error) {
          return (error as Error).message;
        }
      };
      const expected = call(messagesDeltaReducer as typeof messagesReducer);
      expect(call(messagesReducer), `round ${round}`).toEqual(expected);
      expect(state).toEqual(before);
      if (!special) scanned++;
    }
    expect(scanned).toBeGreaterThan(200);
  });

  it("returns a new list and changes neither the list nor the messages it is given", () => {
    const kept = new AIMessage({ content: "old", id: "a" });
    const state = [new HumanMessage({ content: "hi", id: "h" }), kept];
    const replacement = new AIMessage({ content: "new", id: "a" });
    const result = messagesReducer(state, [[replacement], new AIMessage({ content: "more", id: "b" })]);
    expect(result).not.toBe(state);
    expect(result.map((m) => m.content)).toEqual(["hi", "new", "more"]);
    expect(state.map((m) => m.content)).toEqual(["hi", "old"]);
    expect(kept.content).toBe("old");
  });

  it("is a messages reducer to LangGraph (written plain messages get ids) and to agentrt's checks (shared uncopied)", async () => {
    const graph = new StateGraph(AgentState)
      .addNode("say", () => ({ messages: [{ role: "assistant", content: "plain" }] as never }))
      .addEdge(START, "say")
      .addEdge("say", END)
      .compile({ checkpointer: new MemorySaver() });
    const out = await graph.invoke({ messages: [new HumanMessage({ content: "hi", id: "h1" })] }, { configurable: { thread_id: "t" } });
    expect(out.messages.map((m) => [m.getType(), m.content])).toEqual([["human", "hi"], ["ai", "plain"]]);
    expect(typeof out.messages[1]?.id).toBe("string");
    expect([...appendOnlyChannels(graph as never)]).toContain("messages");
  });
});
