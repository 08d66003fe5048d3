// The server driven by the official @langchain/langgraph-sdk Client, as Studio and user apps drive it, on SQLite and
// on PostgreSQL.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { startServer, type AgentServer } from "../../src/server/server.js";
import { ThreadStateReader } from "../../src/server/thread-state.js";
import { ROLLBACK_INPUT, graphFile, serverBackends, startTestServer, tempProject, type Approval } from "./harness.js";
import { runtimeInternals } from "../../src/runtime/internals.js";

function pendingOf(state: { tasks: { interrupts: { value?: unknown }[] }[] }): Approval[] {
  return state.tasks.flatMap((t) => t.interrupts.map((i) => i.value as Approval));
}

describe.each(serverBackends(import.meta.url))("agentrt serve with the official SDK client on $backend", ({ db }) => {
  let server: AgentServer;
  let client: Client;

  beforeAll(async () => {
    ({ server, client } = await startTestServer({ db: db() }));
  });
  afterAll(async () => {
    await server.close();
  });

    it("lists one assistant per graph, by uuid and by graph id, and draws its graph", async () => {
      const assistants = await client.assistants.search();
      expect(assistants.map((a) => a.graph_id)).toEqual(["ops_rollback", "broken"]);
      expect((await client.assistants.search({ metadata: { created_by: "system" } })).length).toBe(2);
      expect(await client.assistants.search({ metadata: { created_by: "someone" } })).toEqual([]);
      expect(await client.assistants.count({ graphId: "ops_rollback" })).toBe(1);
      expect(await client.assistants.count({ name: "brok" })).toBe(1);
      const byId = await client.assistants.get("ops_rollback");
      expect(byId.assistant_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect((await client.assistants.get(byId.assistant_id)).graph_id).toBe("ops_rollback");
      const graph = await client.assistants.getGraph(byId.assistant_id, { xray: true });
      expect((graph.nodes as { id: string }[]).map((n) => n.id)).toEqual(expect.arrayContaining(["__start__", "model", "tools"]));
      const schemas = await client.assistants.getSchemas("ops_rollback");
      expect(Object.keys((schemas.state_schema as { properties: object }).properties)).toContain("messages");
    });

    it("streams a run to its interrupt, refuses a wrong args_hash, resumes with the right one, and keeps history", async () => {
      const thread = await client.threads.create({ metadata: { team: "ops" } });
      const events: { event: string; data: unknown }[] = [];
      for await (const part of client.runs.stream(thread.thread_id, "ops_rollback", { input: ROLLBACK_INPUT, streamMode: ["values", "updates"] })) {
        events.push(part);
      }
      expect(events[0]?.event).toBe("metadata");
      expect(events.some((e) => e.event === "updates")).toBe(true);
      expect(events.some((e) => e.event === "values")).toBe(true);

      const waiting = await client.threads.getState(thread.thread_id);
      const [approval] = pendingOf(waiting);
      expect(approval?.tool).toBe("rollback_deployment");
      expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");

      const wrong = { action_id: approval?.action_id, args_hash: "0".repeat(64), decision: "approve" };
      await expect(client.runs.wait(thread.thread_id, "ops_rollback", { command: { resume: wrong } })).rejects.toThrow(/409|args_hash/);
      expect(pendingOf((await client.threads.getState(thread.thread_id)) as never)).toHaveLength(1);

      const right = { action_id: approval?.action_id, args_hash: approval?.args_hash, decision: "approve" };
      const resumed: string[] = [];
      for await (const part of client.runs.stream(thread.thread_id, "ops_rollback", { command: { resume: right }, streamMode: "values" })) {
        resumed.push(part.event);
      }
      expect(resumed[0]).toBe("metadata");
      expect(resumed).toContain("values");

      const done = await client.threads.getState<{ messages: { type: string; content: string }[] }>(thread.thread_id);
      expect(done.next).toEqual([]);
      expect(done.values.messages.at(-1)?.content).toMatch(/Rolled back to/);
      expect((await client.threads.get(thread.thread_id)).status).toBe("idle");

      const runs = await client.runs.list(thread.thread_id);
      expect(runs.map((r) => r.status)).toEqual(["success"]);
      expect((await client.runs.get(thread.thread_id, runs[0]!.run_id)).status).toBe("success");

      const history = await client.threads.getHistory(thread.thread_id, { limit: 100 });
      expect(history.length).toBeGreaterThan(4);
      expect(history[0]?.checkpoint.checkpoint_id).toBe(done.checkpoint.checkpoint_id);
      const earlier = history.at(-1)!;
      const past = await client.threads.getState(thread.thread_id, earlier.checkpoint.checkpoint_id!);
      expect(past.checkpoint.checkpoint_id).toBe(earlier.checkpoint.checkpoint_id);
      expect((await client.threads.search({ metadata: { team: "ops" } })).map((t) => t.thread_id)).toEqual([thread.thread_id]);

      // Fork: rewrite the question at the checkpoint before the first model turn, then run from the fork.
      type Msg = { type: string; content: string; id: string };
      const beforeModel = history.find((h) => h.next.includes("model") && (h.values as { messages: Msg[] }).messages.length === 1)!;
      const question = (beforeModel.values as { messages: Msg[] }).messages[0]!;
      const fork = await client.threads.updateState(thread.thread_id, {
        values: { messages: [{ type: "human", content: "Is the search deploy healthy?", id: question.id }] },
        checkpointId: beforeModel.checkpoint.checkpoint_id!,
      });
      const forkId = (fork as { checkpoint: { checkpoint_id: string } }).checkpoint.checkpoint_id;
      const forked = await client.threads.getState(thread.thread_id);
      expect(forked.checkpoint.checkpoint_id).toBe(forkId);
      expect(forked.parent_checkpoint?.checkpoint_id).toBe(beforeModel.checkpoint.checkpoint_id);
      await client.runs.wait(thread.thread_id, "ops_rollback", { input: null });
      const branch = await client.threads.getState<{ messages: Msg[] }>(thread.thread_id);
      expect(branch.values.messages[0]?.content).toBe("Is the search deploy healthy?");
      expect(branch.values.messages.filter((m) => m.type === "ai").map((m) => m.content).join(" ")).toMatch(/search/);
      const lineage = await client.threads.getHistory(thread.thread_id, { limit: 200 });
      expect(lineage.map((h) => h.checkpoint.checkpoint_id)).toContain(forkId);
    });

    it("answers the wait of a run that ran to its end with the values it streamed, equal to the thread's state", async () => {
      const fresh = await startTestServer({ db: db() });
      onTestFinished(() => fresh.server.close());
      const thread = await fresh.client.threads.create();
      const waiting = (await fresh.client.runs.wait(thread.thread_id, "ops_rollback", { input: ROLLBACK_INPUT })) as { __interrupt__?: { value: Approval }[] };
      const approval = waiting.__interrupt__?.[0]?.value;
      const reads = vi.spyOn(ThreadStateReader.prototype, "state");
      const checks = vi.spyOn(ThreadStateReader.prototype, "pending");
      onTestFinished(() => {
        reads.mockRestore();
        checks.mockRestore();
      });
      const done = await fresh.client.runs.wait(thread.thread_id, "ops_rollback", {
        command: { resume: { action_id: approval?.action_id, args_hash: approval?.args_hash, decision: "approve" } },
      });
      // The resume's approval check reads the pending actions; the answer itself reads nothing.
      expect(checks).toHaveBeenCalledTimes(1);
      expect(reads).toHaveBeenCalledTimes(1);
      expect(JSON.stringify(done)).toMatch(/Rolled back to/);
      expect(done).toEqual((await fresh.client.threads.getState(thread.thread_id)).values);
    });

    it("keeps a thread to the graph it started with, and names a graph that does not load", async () => {
      const { dir } = tempProject();
      const config = join(dir, "two-graphs.json");
      writeFileSync(config, JSON.stringify({ graphs: { ops_rollback: `${graphFile("ops_rollback")}:graph`, city_weather: `${graphFile("city_weather")}:graph`, broken: "./missing.ts:graph" } }));
      const two = await startServer({ port: 0, db: db(), config, apiKey: "", log: () => undefined });
      onTestFinished(() => two.close());
      const post = (path: string, body: object) => fetch(`${two.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      const thread = (await (await post("/threads", {})).json()) as { thread_id: string };
      expect((await post(`/threads/${thread.thread_id}/runs/wait`, { assistant_id: "ops_rollback", input: ROLLBACK_INPUT })).status).toBe(200);
      const stored = async () => (await runtimeInternals(two.runtime).runs.list({ threadId: thread.thread_id })).length;
      expect(await stored()).toBe(1);
      const foreign = await post(`/threads/${thread.thread_id}/runs`, { assistant_id: "city_weather", input: { messages: [] } });
      expect(foreign.status).toBe(422);
      expect(await foreign.json()).toMatchObject({ code: "BAD_INPUT", message: expect.stringMatching(/belongs to graph ops_rollback, not city_weather/) });
      const broken = await post(`/threads/${thread.thread_id}/runs`, { assistant_id: "broken", input: {} });
      expect(broken.status).toBe(500);
      expect(await broken.json()).toMatchObject({ code: "GRAPH_LOAD_FAILED", message: expect.stringMatching(/graph broken: cannot load .*missing\.ts/) });
      expect(await stored()).toBe(1);
    });

    it("waits for a run, creates a background run and joins it, and cancels", async () => {
      // The simulated world lives in the database: a fresh one still has the failed deploy.
      const fresh = await startTestServer({ db: db() });
      const client = fresh.client;
      onTestFinished(() => fresh.server.close());
      const values = await client.runs.wait(null, "ops_rollback", { input: ROLLBACK_INPUT });
      expect((values as { __interrupt__?: unknown[] }).__interrupt__).toHaveLength(1);

      const thread = await client.threads.create();
      const run = await client.runs.create(thread.thread_id, "ops_rollback", { input: ROLLBACK_INPUT });
      expect(["pending", "running"]).toContain(run.status);
      const joined = await client.runs.join(thread.thread_id, run.run_id);
      expect((joined as { __interrupt__?: unknown[] }).__interrupt__).toHaveLength(1);
      expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("interrupted");

      await client.runs.cancel(thread.thread_id, run.run_id);
      expect((await client.runs.get(thread.thread_id, run.run_id)).metadata).toMatchObject({ agentrt_status: "CANCELED" });
      await client.threads.delete(thread.thread_id);
      await expect(client.threads.get(thread.thread_id)).rejects.toThrow(/404/);
    });
});
