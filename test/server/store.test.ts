// The store endpoints through the official SDK's client.store: what a client puts is what a graph's
// config.store reads, what a node saved is listed, and bad input is refused without changing anything.
import { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it, onTestFinished } from "vitest";
import type { AgentServer } from "../../src/server/server.js";
import { fixtureEntry, serverBackends, startTestServer } from "./harness.js";

describe.each(serverBackends(import.meta.url))("on $backend", ({ db }) => {
  /** A server over the memory fixture for one test; `clientKey` is the key the SDK client sends. */
  async function start(options: { apiKey?: string; clientKey?: string } = {}): Promise<{ server: AgentServer; client: Client }> {
    const { server } = await startTestServer({ db: db(), apiKey: options.apiKey ?? "" }, { memory: fixtureEntry("memory-graph") });
    onTestFinished(() => server.close());
    return { server, client: new Client({ apiUrl: server.url, apiKey: options.clientKey ?? null }) };
  }

  describe("store endpoints", () => {
    it("puts, gets, searches, lists and deletes items with the SDK", async () => {
      const { client } = await start();
      await client.store.putItem(["users", "alice", "prefs"], "language", { value: "Chinese", note: "asked in thread 1" });
      await client.store.putItem(["users", "bob", "prefs"], "language", { value: "English" });

      const item = await client.store.getItem(["users", "alice", "prefs"], "language");
      expect(item).toMatchObject({ namespace: ["users", "alice", "prefs"], key: "language", value: { value: "Chinese", note: "asked in thread 1" } });
      expect(Number.isNaN(Date.parse(String(item?.createdAt)))).toBe(false);
      expect(await client.store.getItem(["users", "carol", "prefs"], "language")).toBeNull();

      const alice = await client.store.searchItems(["users", "alice"]);
      expect(alice.items.map((i) => i.key)).toEqual(["language"]);
      const english = await client.store.searchItems(["users"], { filter: { value: "English" } });
      expect(english.items.map((i) => i.namespace)).toEqual([["users", "bob", "prefs"]]);
      const ranked = await client.store.searchItems(["users"], { query: "thread" });
      expect(ranked.items.map((i) => i.namespace[1])).toEqual(["alice"]);

      expect((await client.store.listNamespaces({ prefix: ["users"] })).namespaces).toEqual([["users", "alice", "prefs"], ["users", "bob", "prefs"]]);
      expect((await client.store.listNamespaces({ maxDepth: 2 })).namespaces).toEqual([["users", "alice"], ["users", "bob"]]);

      await client.store.deleteItem(["users", "alice", "prefs"], "language");
      expect(await client.store.getItem(["users", "alice", "prefs"], "language")).toBeNull();
    });

    it("is the store graphs read and write: an item put over HTTP changes a run's answer, and the run's own write is listed", async () => {
      const { client } = await start();
      const ask = async () => (await client.runs.wait(null, "memory", { input: { message: "Status of 10086?" } })) as { reply?: string };
      expect((await ask()).reply).toBe("replying in English");
      // Without an API key the caller, and so configurable.user, is "anonymous".
      await client.store.putItem(["users", "anonymous", "prefs"], "language", { value: "Chinese" });
      expect((await ask()).reply).toBe("replying in Chinese");
      const saved = await client.store.getItem(["users", "anonymous", "history"], "last_message");
      expect(saved?.value).toEqual({ text: "Status of 10086?" });
    });

    it("matches filter fields with backslashes and quotes, and ranks a long query by its first terms", async () => {
      const { client } = await start();
      await client.store.putItem(["docs"], "odd", { "a\\b": 1, "q\"x": 2, "x\\": 3, text: "春眠不觉晓" });
      for (const filter of [{ "a\\b": 1 }, { "q\"x": 2 }, { "x\\": 3 }]) {
        expect((await client.store.searchItems(["docs"], { filter })).items.map((i) => i.key)).toEqual(["odd"]);
      }
      // ~1,200 distinct characters: each is a term; only the first ones rank, the request is not refused.
      const longQuery = "春" + Array.from({ length: 1200 }, (_, i) => String.fromCodePoint(0x4e00 + i)).join("");
      expect((await client.store.searchItems(["docs"], { query: longQuery })).items.map((i) => i.key)).toEqual(["odd"]);
    });

    it("expires an item put with a ttl (minutes) once it has passed", async () => {
      const { client } = await start();
      await client.store.putItem(["tmp"], "short", { v: 1 }, { ttl: 0.0005 }); // 30 ms
      await client.store.putItem(["tmp"], "long", { v: 2 }, { ttl: 60 });
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(await client.store.getItem(["tmp"], "short")).toBeNull();
      expect((await client.store.getItem(["tmp"], "long"))?.value).toEqual({ v: 2 });
    });

    it("refuses bad input with 422 and a reason, storing nothing", async () => {
      const { server, client } = await start();
      const send = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(`${server.url}${path}`, { method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
        return { status: response.status, body: (await response.json()) as { message?: string } };
      };
      const dotted = await send("PUT", "/store/items", { namespace: ["users", "a.b"], key: "k", value: { v: 1 } });
      expect(dotted.status).toBe(422);
      expect(dotted.body.message).toMatch(/cannot contain '\.'/);
      expect((await send("PUT", "/store/items", { namespace: [], key: "k", value: { v: 1 } })).status).toBe(422);
      expect((await send("PUT", "/store/items", { namespace: ["users"], key: "k", value: "not an object" })).status).toBe(422);
      const reserved = await send("PUT", "/store/items", { namespace: ["langgraph", "x"], key: "k", value: { v: 1 } });
      expect(reserved.status).toBe(422);
      expect(reserved.body.message).toMatch(/langgraph/);
      expect((await send("GET", "/store/items?namespace=users..x&key=k")).status).toBe(422);
      expect((await send("GET", "/store/items?namespace=users")).status).toBe(422);
      expect((await send("POST", "/store/items/search", { namespace_prefix: ["users"], limit: 0 })).status).toBe(422);
      // Documents and expressions past SQLite's depth limit of 1000 are refused, not stored to break later searches.
      let deep: Record<string, unknown> = { leaf: 1 };
      for (let i = 0; i < 1500; i++) deep = { d: deep };
      expect((await send("PUT", "/store/items", { namespace: ["users"], key: "deep", value: deep })).status).toBe(422);
      expect((await send("POST", "/store/items/search", { namespace_prefix: [], filter: { tag: { $in: Array.from({ length: 1000 }, (_, i) => i) } } })).status).toBe(422);
      expect((await send("POST", "/store/namespaces", { prefix: Array.from({ length: 5000 }, (_, i) => `l${i}`) })).status).toBe(422);
      expect((await send("DELETE", "/store/items", { namespace: ["langgraph", "x"], key: "k" })).status).toBe(422);
      expect((await client.store.listNamespaces()).namespaces).toEqual([]);
    });

    it("needs the API key like every other endpoint", async () => {
      const { server, client } = await start({ apiKey: "alice:secret-key-1", clientKey: "secret-key-1" });
      const anonymous = await fetch(`${server.url}/store/items?namespace=users&key=k`);
      expect(anonymous.status).toBe(401);
      await client.store.putItem(["users"], "k", { v: 1 });
      expect((await client.store.getItem(["users"], "k"))?.value).toEqual({ v: 1 });
    });
  });
});
