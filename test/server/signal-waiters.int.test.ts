// Issue #18 item 2 for the server's waiters on PostgreSQL: POST /threads/{id}/runs/wait answers when a worker in
// another process (`agentrt worker`) finishes the run, woken by the run's NOTIFY — the server's shared safety poll
// is ten minutes away, and no worker of its own reports rests to it.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve, type ServerType } from "@hono/node-server";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, describe, expect, it } from "vitest";
import { Runtime, StreamBus } from "../../src/runtime/index.js";
import { runtimeInternals } from "../../src/runtime/internals.js";
import { createApp } from "../../src/server/app.js";
import { openThreadStore } from "../../src/server/open-thread-store.js";
import { RunService, type RunHandoff } from "../../src/server/run-service.js";
import { busStreams } from "../../src/server/run-streams.js";
import { ThreadStateReader } from "../../src/server/thread-state.js";
import { closeWorlds } from "../../src/testing/index.js";
import { useTestSchema } from "../helpers/postgres.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CONFIG = join(ROOT, "langgraph.json");
const schema = useTestSchema(import.meta.url);
afterAll(closeWorlds);

/** Worker processes exist (the `agentrt worker` below): a run for "any" worker stays QUEUED for them. */
const handoff: RunHandoff = { ready: true, poke: () => true, canceled: () => undefined, reportsRests: () => false };

function listen(fetch: (request: Request) => Response | Promise<Response>): Promise<{ server: ServerType; url: string }> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, port: 0, hostname: "127.0.0.1" }, (info) => resolve({ server, url: `http://127.0.0.1:${info.port}` }));
    server.once("error", reject);
  });
}

describe("the server's waiters on PostgreSQL", () => {
  it("runs.wait answers when a worker process finishes the run, although the server's safety poll is ten minutes away", async () => {
    const { url } = schema.fresh("w");
    const rt = Runtime.open({ db: url, config: CONFIG });
    await rt.ready();
    const { storage } = runtimeInternals(rt);
    const service = new RunService(rt, await openThreadStore(storage.db), new ThreadStateReader(rt.registry, storage.checkpointer()), () => undefined, handoff, { safetyPollMs: 600_000 });
    const { server, url: apiUrl } = await listen(createApp({ service, streams: busStreams(new StreamBus()), log: () => undefined }).fetch);
    const worker = spawn(process.execPath, ["--import", "tsx", "src/cli/bin.ts", "worker", "--worker-id", "w-elsewhere"], {
      cwd: ROOT,
      env: { ...process.env, AGENTRT_DATABASE_URL: url, AGENTRT_CONFIG: CONFIG, OPENAI_API_KEY: "" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    try {
      const client = new Client({ apiUrl, apiKey: null });
      const thread = await client.threads.create();
      const done = (await client.runs.wait(thread.thread_id, "city_weather", {
        input: { messages: [{ role: "user", content: "Weather for Beijing" }] },
      })) as { messages: { content: string }[] };
      expect(done.messages.at(-1)?.content).toMatch(/Beijing/);
      const [run] = await rt.records.list({ threadId: thread.thread_id });
      expect(run?.status).toBe("SUCCEEDED");
      // Executed by the worker process, not here: the server had no worker of its own.
      expect((await rt.records.events(run!.runId)).filter((e) => e.to === "RUNNING").map((e) => e.actor)).toEqual(["w-elsewhere"]);
    } finally {
      worker.kill("SIGKILL");
      await exited;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      service.waiters.close();
      await rt.close();
    }
  }, 150_000);
});
