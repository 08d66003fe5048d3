import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Annotation, END, type LangGraphRunnableConfig, MemorySaver, START, StateGraph, getStore } from "@langchain/langgraph";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteStore } from "../../src/memory/sqlite-store.js";

const State = Annotation.Root({
  message: Annotation<string>,
  reply: Annotation<string>,
});

function userOf(config: LangGraphRunnableConfig): string {
  const user = config.configurable?.user_id as unknown;
  if (typeof user !== "string") throw new Error("user_id missing");
  return user;
}

/** Remembers "answer in X" / "my team is Y" per user; answers using what it remembers. */
function buildGraph(store: SqliteStore) {
  return new StateGraph(State)
    .addNode("remember", async (state, config) => {
      // config.store is LangGraph's batching wrapper around our SqliteStore.
      const memory = config.store!;
      const ns = ["users", userOf(config), "prefs"];
      const language = /answer in (\w+)/i.exec(state.message)?.[1];
      if (language !== undefined) await memory.put(ns, "language", { value: language });
      const team = /my team is (\w+)/i.exec(state.message)?.[1];
      if (team !== undefined) await memory.put(ns, "team", { value: team });
      return {};
    })
    .addNode("answer", async (_state, config) => {
      const memory = getStore()!;
      const prefs = await memory.search(["users", userOf(config), "prefs"]);
      const known = Object.fromEntries(prefs.map((p) => [p.key, p.value.value as string]));
      return { reply: `language=${known.language ?? "default"} team=${known.team ?? "unknown"}` };
    })
    .addEdge(START, "remember")
    .addEdge("remember", "answer")
    .addEdge("answer", END)
    .compile({ checkpointer: new MemorySaver(), store });
}

describe("memory across threads", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "agentrt-memory-graph-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("a preference saved in one thread is used in the user's next thread and never leaks to another user", async () => {
    const path = join(dir, "agentrt.db");
    const first = new SqliteStore(path);
    const graph1 = buildGraph(first);
    const saved = await graph1.invoke(
      { message: "Please answer in Chinese; my team is payments" },
      { configurable: { thread_id: "t-a-1", user_id: "alice" } },
    );
    expect(saved.reply).toBe("language=Chinese team=payments");
    first.close();

    // A later run in a fresh store connection (as another process would open it).
    const second = new SqliteStore(path);
    const graph2 = buildGraph(second);
    try {
      const again = await graph2.invoke({ message: "What failed in the deploy?" }, { configurable: { thread_id: "t-a-2", user_id: "alice" } });
      expect(again.reply).toBe("language=Chinese team=payments");

      const other = await graph2.invoke({ message: "What failed in the deploy?" }, { configurable: { thread_id: "t-b-1", user_id: "bob" } });
      expect(other.reply).toBe("language=default team=unknown");

      await graph2.invoke({ message: "answer in English" }, { configurable: { thread_id: "t-b-2", user_id: "bob" } });
      expect((await second.get(["users", "alice", "prefs"], "language"))?.value).toEqual({ value: "Chinese" });
      expect((await second.get(["users", "bob", "prefs"], "language"))?.value).toEqual({ value: "English" });
      expect(await second.listNamespaces({ prefix: ["users"], maxDepth: 2 })).toEqual([
        ["users", "alice"],
        ["users", "bob"],
      ]);
    } finally {
      second.close();
    }
  });
});
