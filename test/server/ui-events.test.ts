// GET /agentrt/events, the viewer's live feed over real HTTP: `ready`, then `runs` naming a run that was
// created and moved while the stream was open, also when another connection (a CLI, a worker) wrote it; on SQLite
// and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Runtime } from "../../src/runtime/index.js";
import { runtimeInternals } from "../../src/runtime/internals.js";
import { ROLLBACK_INPUT, serverBackends, startTestServer } from "./harness.js";

interface Listened { events: { event: string; data: string }[]; stop: () => void; until: (pred: () => boolean) => Promise<void> }

async function listen(url: string, headers: Record<string, string> = {}): Promise<Listened> {
  const abort = new AbortController();
  const res = await fetch(`${url}/agentrt/events`, { headers, signal: abort.signal });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const events: Listened["events"] = [];
  const waiters = new Set<() => void>();
  void (async () => {
    let buffer = "";
    try {
      for await (const chunk of res.body!.pipeThrough(new TextDecoderStream())) {
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          if (event !== undefined) events.push({ event, data: block.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n") });
          for (const w of waiters) w();
        }
      }
    } catch {
      // aborted by stop()
    }
  })();
  const until = (pred: () => boolean) => new Promise<void>((resolve) => {
    const check = () => {
      if (!pred()) return;
      waiters.delete(check);
      resolve();
    };
    waiters.add(check);
    check();
  });
  return { events, stop: () => abort.abort(), until };
}

const changedRuns = (l: Listened) => l.events.filter((e) => e.event === "runs").flatMap((e) => JSON.parse(e.data) as { run_id: string; status: string }[]);

describe.each(serverBackends(import.meta.url))("GET /agentrt/events on $backend", ({ db }) => {
  let started: ReturnType<typeof startTestServer>;
  beforeAll(() => {
    started = startTestServer({ db: db(), apiKey: "events-key-123" });
  });
  afterAll(async () => (await started).server.close());

  it("needs the key like every data route", async () => {
    const { server } = await started;
    expect((await fetch(`${server.url}/agentrt/events`)).status).toBe(401);
  });

  it("reports a run created and paused in this server, and one another connection writes", async () => {
    const { server, project } = await started;
    const feed = await listen(server.url, { "x-api-key": "events-key-123" });
    try {
      await feed.until(() => feed.events.some((e) => e.event === "ready"));
      const res = await fetch(`${server.url}/runs/wait`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": "events-key-123" },
        body: JSON.stringify({ assistant_id: "ops_rollback", input: ROLLBACK_INPUT }),
      });
      expect(res.status).toBe(200);
      await feed.until(() => changedRuns(feed).some((r) => r.status === "WAITING_APPROVAL"));

      // Another process's write (here another connection to the same database) reaches the feed too.
      const elsewhere = Runtime.open({ db: project.db, config: project.config });
      try {
        const other = await runtimeInternals(elsewhere).runs.create({ graphId: "ops_rollback", input: {} });
        await feed.until(() => changedRuns(feed).some((r) => r.run_id === other.runId));
      } finally {
        await elsewhere.close();
      }
    } finally {
      feed.stop();
    }
  });
});
