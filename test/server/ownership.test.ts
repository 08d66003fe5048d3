// With keys that name users, a thread, its runs and the store namespace ["users", <user>, …] are their owner's: bob
// is refused (403 NOT_OWNER, nothing changed) on every route that reads, answers, changes or deletes alice's, while
// alice and role admin are let through; searches, counts, run lists and the live feed leave out what bob may not
// read. An approver the policy names may decide (and read the run to do so), nothing more. On SQLite and PostgreSQL.
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentServer } from "../../src/server/server.js";
import { serverBackends, startTestServer } from "./harness.js";

const fixture = (path: string) => `${fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url))}:graph`;
const KEYS = { alice: "key-alice-123", bob: "key-bob-1234", carol: "key-carol-123", root: "key-root-1234" };
type Who = keyof typeof KEYS;
const API_KEY = `alice:${KEYS.alice},bob:${KEYS.bob},carol+sre:${KEYS.carol},root+admin:${KEYS.root}`;
const GRAPHS = { ask: fixture("plain-interrupt/ask.ts"), two_rollbacks: fixture("two-approvals/two_rollbacks.ts") };
const ROLL_BACK = { messages: [{ role: "user", content: "roll back" }] };
const PREFS = ["users", "alice", "prefs"];

type Json = Record<string, unknown> & unknown[];
interface Answer { status: number; body: Json }

/** Alice's things a row acts on: a finished thread (its run, a checkpoint), a thread asking a question. */
interface Things { done: string; run: string; checkpoint: string; asking: string; askingRun: string }

/** A route acting on alice's things; `writes`: an allowed call changes them (it gets things of its own). */
interface Row { name: string; method: string; path: (t: Things) => string; body?: (t: Things) => unknown; writes?: true }

const THREAD_ROWS: Row[] = [
  { name: "get the thread", method: "GET", path: (t) => `/threads/${t.done}` },
  { name: "create it again with if_exists do_nothing", method: "POST", path: () => "/threads", body: (t) => ({ thread_id: t.done, if_exists: "do_nothing" }) },
  { name: "patch its metadata", method: "PATCH", path: (t) => `/threads/${t.done}`, body: () => ({ metadata: { note: "changed" } }), writes: true },
  { name: "delete it", method: "DELETE", path: (t) => `/threads/${t.done}`, writes: true },
  { name: "copy it", method: "POST", path: (t) => `/threads/${t.done}/copy`, body: () => ({}) },
  { name: "read its state", method: "GET", path: (t) => `/threads/${t.done}/state` },
  { name: "read its state at a checkpoint", method: "GET", path: (t) => `/threads/${t.done}/state/${t.checkpoint}` },
  { name: "read its state by POST", method: "POST", path: (t) => `/threads/${t.done}/state/checkpoint`, body: (t) => ({ checkpoint: { checkpoint_id: t.checkpoint } }) },
  { name: "update its state", method: "POST", path: (t) => `/threads/${t.done}/state`, body: () => ({ values: { answer: "changed" } }), writes: true },
  { name: "read its history", method: "GET", path: (t) => `/threads/${t.done}/history` },
  { name: "read its history by POST", method: "POST", path: (t) => `/threads/${t.done}/history`, body: () => ({ limit: 5 }) },
  { name: "run on it (wait)", method: "POST", path: (t) => `/threads/${t.done}/runs/wait`, body: () => ({ assistant_id: "ask", input: {} }), writes: true },
  { name: "run on it (background)", method: "POST", path: (t) => `/threads/${t.done}/runs`, body: () => ({ assistant_id: "ask", input: {} }), writes: true },
  { name: "run on it (stream)", method: "POST", path: (t) => `/threads/${t.done}/runs/stream`, body: () => ({ assistant_id: "ask", input: {} }), writes: true },
  { name: "list its runs", method: "GET", path: (t) => `/threads/${t.done}/runs` },
  { name: "get its run", method: "GET", path: (t) => `/threads/${t.done}/runs/${t.run}` },
  { name: "join its run", method: "GET", path: (t) => `/threads/${t.done}/runs/${t.run}/join` },
  { name: "stream its run", method: "GET", path: (t) => `/threads/${t.done}/runs/${t.run}/stream` },
  { name: "cancel its finished run", method: "POST", path: (t) => `/threads/${t.done}/runs/${t.run}/cancel`, body: () => ({}), writes: true },
  { name: "view its run", method: "GET", path: (t) => `/agentrt/runs/${t.run}` },
  { name: "list its run's approvals", method: "GET", path: (t) => `/agentrt/runs/${t.run}/approvals` },
  { name: "read its run's trace", method: "GET", path: (t) => `/agentrt/runs/${t.run}/trace` },
  { name: "draw its run's graph", method: "GET", path: (t) => `/agentrt/runs/${t.run}/graph` },
  { name: "list its run's status changes", method: "GET", path: (t) => `/agentrt/runs/${t.run}/events` },
  { name: "answer its question", method: "POST", path: (t) => `/threads/${t.asking}/runs/wait`, body: () => ({ assistant_id: "ask", command: { resume: "order 7" } }), writes: true },
  { name: "read a store item of hers", method: "GET", path: () => `/store/items?namespace=${PREFS.join(".")}&key=language` },
  { name: "put a store item of hers", method: "PUT", path: () => "/store/items", body: () => ({ namespace: PREFS, key: "language", value: { value: "Klingon" } }), writes: true },
  { name: "delete a store item of hers", method: "DELETE", path: () => "/store/items", body: () => ({ namespace: PREFS, key: "language" }), writes: true },
  { name: "search her store namespace", method: "POST", path: () => "/store/items/search", body: () => ({ namespace_prefix: ["users", "alice"] }) },
  { name: "list her store namespaces", method: "POST", path: () => "/store/namespaces", body: () => ({ prefix: ["users", "alice"] }) },
];

describe.each(serverBackends(import.meta.url))("ownership with several keys on $backend", ({ db }) => {
  let server: AgentServer;
  /** Things every call that changes nothing acts on: bob's refused ones, alice's and root's reads. */
  let shared: Promise<Things> | undefined;
  beforeAll(async () => {
    server = (await startTestServer({ db: db(), apiKey: API_KEY }, GRAPHS)).server;
  });
  afterAll(async () => server.close());

  async function call(who: Who, method: string, path: string, body?: unknown): Promise<Answer> {
    const response = await fetch(`${server.url}${path}`, {
      method, headers: { "content-type": "application/json", "x-api-key": KEYS[who] }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const json = response.headers.get("content-type")?.includes("application/json") === true && text !== "" ? JSON.parse(text) : text;
    return { status: response.status, body: json as Json };
  }
  const ok = async (who: Who, method: string, path: string, body?: unknown) => {
    const answer = await call(who, method, path, body);
    expect(answer.status, `${who} ${method} ${path}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
    return answer.body;
  };

  /** Fresh things of alice's: a thread whose run ended SUCCEEDED, one whose run asks a question, her store item. */
  async function things(): Promise<Things> {
    const done = (await ok("alice", "POST", "/threads", {})).thread_id as string;
    await ok("alice", "POST", `/threads/${done}/runs/wait`, { assistant_id: "ask", input: {} });
    await ok("alice", "POST", `/threads/${done}/runs/wait`, { assistant_id: "ask", command: { resume: "order 1" } });
    const [run] = (await ok("alice", "GET", `/threads/${done}/runs`)) as { run_id: string }[];
    const checkpoint = ((await ok("alice", "GET", `/threads/${done}/state`)).checkpoint as { checkpoint_id: string }).checkpoint_id;
    const asking = (await ok("alice", "POST", "/threads", {})).thread_id as string;
    await ok("alice", "POST", `/threads/${asking}/runs/wait`, { assistant_id: "ask", input: {} });
    const [askingRun] = (await ok("alice", "GET", `/threads/${asking}/runs`)) as { run_id: string }[];
    await ok("alice", "PUT", "/store/items", { namespace: PREFS, key: "language", value: { value: "Chinese" } });
    return { done, run: run!.run_id, checkpoint, asking, askingRun: askingRun!.run_id };
  }

  /** What alice sees of her things: equal before and after a refused call means nothing changed. */
  async function seen(t: Things): Promise<unknown> {
    const thread = (await ok("alice", "GET", `/threads/${t.done}`)) as Record<string, unknown>;
    return {
      thread: { ...thread, updated_at: undefined, state_updated_at: undefined },
      runs: await ok("alice", "GET", `/threads/${t.done}/runs`),
      history: await ok("alice", "GET", `/threads/${t.done}/history`),
      asking: ((await ok("alice", "GET", `/agentrt/runs/${t.askingRun}`)) as Record<string, unknown>).status,
      item: ((await ok("alice", "GET", `/store/items?namespace=${PREFS.join(".")}&key=language`)) as Record<string, unknown>).value,
      threads: await ok("alice", "POST", "/threads/count", {}),
    };
  }

  it.each(THREAD_ROWS)("bob may not $name: 403 NOT_OWNER, nothing changed", async (row) => {
    const t = await (shared ??= things());
    const before = await seen(t);
    const refused = await call("bob", row.method, row.path(t), row.body?.(t));
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    expect(refused.body.code).toBe("NOT_OWNER");
    expect(await seen(t)).toEqual(before);
  });

  it.each(THREAD_ROWS.flatMap((row) => (["alice", "root"] as const).map((who) => ({ ...row, who }))))("$who may $name", async (row) => {
    const t = await (row.writes === true ? things() : (shared ??= things()));
    await ok(row.who, row.method, row.path(t), row.body?.(t));
  });

  it("lets alice answer her question (SUCCEEDED) after bob was refused", async () => {
    const t = await things();
    expect((await call("bob", "POST", `/threads/${t.asking}/runs/wait`, { assistant_id: "ask", command: { resume: "bob's" } })).status).toBe(403);
    await ok("alice", "POST", `/threads/${t.asking}/runs/wait`, { assistant_id: "ask", command: { resume: "order 7" } });
    expect(await ok("alice", "GET", `/agentrt/runs/${t.askingRun}`)).toMatchObject({ status: "SUCCEEDED", user: "alice" });
  });

  it("searches, counts and lists only what the caller may read; an admin sees all", async () => {
    const tag = { suite: `lists-${Date.now()}` };
    const hers = (await ok("alice", "POST", "/threads", { metadata: tag })).thread_id as string;
    const his = (await ok("bob", "POST", "/threads", { metadata: tag })).thread_id as string;
    const t = await things();
    await ok("bob", "PUT", "/store/items", { namespace: ["users", "bob", "prefs"], key: "language", value: { value: "Dutch" } });
    const ids = async (who: Who, body: unknown) => ((await ok(who, "POST", "/threads/search", body)) as { thread_id: string }[]).map((x) => x.thread_id);
    expect(await ids("bob", { metadata: tag })).toEqual([his]);
    expect(await ids("bob", { metadata: tag, status: "idle", limit: 1 })).toEqual([his]);
    expect(await ids("alice", { metadata: tag })).toEqual([hers]);
    expect((await ids("root", { metadata: tag })).sort()).toEqual([hers, his].sort());
    expect(await ids("bob", { limit: 1000 })).not.toContain(t.done);
    expect(await ok("bob", "POST", "/threads/count", { metadata: tag })).toBe(1);
    expect(await ok("bob", "POST", "/threads/count", { metadata: tag, status: "idle" })).toBe(1);
    expect(await ok("root", "POST", "/threads/count", { metadata: tag })).toBe(2);
    const runIds = async (who: Who) => ((await ok(who, "GET", "/agentrt/runs?limit=1000")) as { run_id: string }[]).map((r) => r.run_id);
    expect(await runIds("bob")).not.toContain(t.run);
    expect(await runIds("alice")).toContain(t.run);
    expect(await runIds("root")).toContain(t.run);
    const items = async (who: Who, prefix: string[]) => ((await ok(who, "POST", "/store/items/search", { namespace_prefix: prefix, limit: 1000 })) as unknown as { items: { namespace: string[] }[] }).items.map((i) => i.namespace.join("."));
    expect(await items("bob", [])).toContain("users.bob.prefs");
    expect((await items("bob", ["users"])).filter((ns) => ns.startsWith("users.alice"))).toEqual([]);
    expect(await items("root", ["users"])).toContain("users.alice.prefs");
    // Pages count only what bob may see: alice's items never shorten or shift them.
    await ok("bob", "PUT", "/store/items", { namespace: ["users", "bob", "notes"], key: "n", value: { value: 1 } });
    const page = async (offset: number) => ((await ok("bob", "POST", "/store/items/search", { namespace_prefix: ["users"], limit: 1, offset })) as unknown as { items: { namespace: string[] }[] }).items.map((i) => i.namespace.join("."));
    expect([...(await page(0)), ...(await page(1))].sort()).toEqual(["users.bob.notes", "users.bob.prefs"]);
    expect(await page(2)).toEqual([]);
    const namespaces = async (who: Who) => ((await ok(who, "POST", "/store/namespaces", { limit: 1000 })) as unknown as { namespaces: string[][] }).namespaces.map((ns) => ns.join("."));
    expect(await namespaces("bob")).toEqual(expect.arrayContaining(["users.bob.prefs"]));
    expect((await namespaces("bob")).filter((ns) => ns.startsWith("users.alice"))).toEqual([]);
    expect(await namespaces("alice")).toContain("users.alice.prefs");
  });

  it("sends bob's live feed (/agentrt/events) his runs, never alice's", async () => {
    const abort = new AbortController();
    const response = await fetch(`${server.url}/agentrt/events`, { headers: { "x-api-key": KEYS.bob }, signal: abort.signal });
    expect(response.status).toBe(200);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    const read = async (until: (text: string) => boolean) => {
      while (!until(text)) text += (await reader.read()).value ?? "";
    };
    await read((s) => s.includes("event: ready"));
    const hers = (await ok("alice", "POST", "/threads", {})).thread_id as string;
    await ok("alice", "POST", `/threads/${hers}/runs/wait`, { assistant_id: "ask", input: {} });
    const his = (await ok("bob", "POST", "/threads", {})).thread_id as string;
    await ok("bob", "POST", `/threads/${his}/runs/wait`, { assistant_id: "ask", input: {} });
    await read((s) => s.includes(his));
    abort.abort();
    expect(text).not.toContain(hers);
  });

  it("lets an approver the policy names read and decide alice's run, but not read, change or delete her thread", async () => {
    const thread = (await ok("alice", "POST", "/threads", {})).thread_id as string;
    await ok("alice", "POST", `/threads/${thread}/runs/wait`, { assistant_id: "two_rollbacks", input: ROLL_BACK });
    const [run] = (await ok("alice", "GET", `/threads/${thread}/runs`)) as { run_id: string }[];
    const runId = run!.run_id;
    expect(await ok("carol", "GET", `/agentrt/runs/${runId}`)).toMatchObject({ status: "WAITING_APPROVAL" });
    expect(await ok("carol", "GET", "/agentrt/runs?status=WAITING_APPROVAL&limit=1000")).toEqual(expect.arrayContaining([expect.objectContaining({ run_id: runId })]));
    const approvals = (await ok("carol", "GET", `/agentrt/runs/${runId}/approvals`)) as { action_id: string; args_hash: string }[];
    expect(approvals).toHaveLength(2);
    for (const [method, path, body] of [
      ["DELETE", `/threads/${thread}`], ["GET", `/threads/${thread}/state`], ["PATCH", `/threads/${thread}`, { metadata: { note: "x" } }],
      ["GET", `/threads/${thread}/runs/${runId}/join`], ["POST", `/threads/${thread}/copy`, {}],
    ] as const) {
      const refused = await call("carol", method, path, body);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.code).toBe("NOT_OWNER");
    }
    // Bob, no approver of hers, may not even look at it.
    expect((await call("bob", "GET", `/agentrt/runs/${runId}`)).status).toBe(403);
    expect((await call("bob", "GET", `/agentrt/runs/${runId}/approvals`)).status).toBe(403);
    for (const action of approvals) await ok("carol", "POST", `/agentrt/runs/${runId}/approve`, { action_id: action.action_id, args_hash: action.args_hash });
    expect(await ok("alice", "GET", `/agentrt/runs/${runId}`)).toMatchObject({ status: "SUCCEEDED" });
    expect((await ok("alice", "GET", `/threads/${thread}`)).thread_id).toBe(thread);
  });

  it("records the creator as a thread's owner, which only an admin may change", async () => {
    const created = await ok("alice", "POST", "/threads", { metadata: { topic: "x" } });
    expect(created.metadata).toMatchObject({ owner: "alice", topic: "x" });
    expect((await call("alice", "POST", "/threads", { metadata: { owner: "bob" } })).status).toBe(422);
    const id = created.thread_id as string;
    expect((await call("alice", "PATCH", `/threads/${id}`, { metadata: { owner: "bob" } })).status).toBe(422);
    await ok("alice", "PATCH", `/threads/${id}`, { metadata: { owner: "alice", topic: "y" } });
    await ok("root", "PATCH", `/threads/${id}`, { metadata: { owner: "bob" } });
    await ok("bob", "GET", `/threads/${id}`);
    expect((await call("alice", "GET", `/threads/${id}`)).status).toBe(403);
    const stateless = await ok("bob", "POST", "/runs/wait", { assistant_id: "ask", input: {} });
    expect(stateless).toBeDefined();
    const copy = await ok("root", "POST", `/threads/${id}/copy`, {});
    expect(copy.metadata).toMatchObject({ owner: "root" });
  });
});
