// What the server accepts from a browser: JSON bodies only, its own Host names, and cross-origin requests from local
// pages and Studio. A foreign page's requests are refused before anything runs (the simulated world sends nothing).
import { request } from "node:http";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { openWorld } from "../../graphs/sim/index.js";
import { main } from "../../src/cli/main.js";
import type { AgentServer } from "../../src/server/server.js";
import { graphEntry, startTestServer, testServerForFile } from "./harness.js";
import { runtimeInternals } from "../../src/runtime/internals.js";

// The offline scripted model, whatever this shell has set.
delete process.env.OPENAI_API_KEY;
const GRAPHS = { order_delay: graphEntry("order_delay") };
const ctx = testServerForFile({}, GRAPHS);

/** The order_delay request that ends in send_message to the sales rep. */
const NOTIFY = JSON.stringify({ assistant_id: "order_delay", input: { messages: [{ role: "user", content: "Check order 10086; if it is delayed, notify the sales rep." }] } });

/** An approval the viewer posts; its run does not exist, so an answer of UNKNOWN_RUN means the request reached the route. */
const DECISION = JSON.stringify({ action_id: "act_x", args_hash: "h" });

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: { code?: string; message?: string } & Record<string, unknown>;
}

/** One HTTP request with exactly these headers (fetch would not let a test set Host). */
function send(server: AgentServer, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: server.port, method, path, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text === "" ? {} : (JSON.parse(text) as Answer["body"]) }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const sent = async (server: AgentServer): Promise<number> => (await (await openWorld({ db: runtimeInternals(server.runtime).db })).snapshot()).calls.send_message ?? 0;
const runsStored = async (server: AgentServer): Promise<number> => (await runtimeInternals(server.runtime).runs.list({})).length;

/** A browser's preflight. */
const preflight = (server: AgentServer, path: string, origin: string, method = "POST") =>
  send(server, "OPTIONS", path, { origin, "access-control-request-method": method, "access-control-request-headers": "content-type,x-api-key" });

describe("a foreign web page", () => {
  it("cannot run a graph with a simple text/plain POST, a JSON POST, or read with a GET: 403 before anything runs", async () => {
    const evil = { origin: "https://evil.example" };
    const simple = await send(ctx.server, "POST", "/runs/wait", { ...evil, "content-type": "text/plain" }, NOTIFY);
    expect(simple.status).toBe(403);
    expect(simple.body.code).toBe("ORIGIN_NOT_ALLOWED");
    expect(simple.body.message).toMatch(/https:\/\/evil\.example/);
    expect(simple.headers["access-control-allow-origin"]).toBeUndefined();
    const json = await send(ctx.server, "POST", "/runs/wait", { ...evil, "content-type": "application/json" }, NOTIFY);
    expect(json.status).toBe(403);
    expect(json.body.code).toBe("ORIGIN_NOT_ALLOWED");
    for (const path of ["/info", "/threads/search", "/agentrt/runs", "/ui", "/ok"]) {
      const read = await send(ctx.server, "GET", path, evil);
      expect([path, read.status, read.body.code]).toEqual([path, 403, "ORIGIN_NOT_ALLOWED"]);
    }
    const asked = await preflight(ctx.server, "/runs/wait", "https://evil.example");
    expect(asked.status).toBe(403);
    expect(asked.headers["access-control-allow-origin"]).toBeUndefined();
    // A sandboxed iframe or a file:// page sends "null".
    expect((await send(ctx.server, "POST", "/runs/wait", { origin: "null", "content-type": "text/plain" }, NOTIFY)).status).toBe(403);
    // A look-alike of a loopback or Studio origin is foreign too.
    for (const origin of ["http://localhost.evil.example:2024", "http://evil.localhost:8302", "https://smith.langchain.com.evil.example", "http://127.0.0.1.nip.io:8302"]) {
      expect((await send(ctx.server, "POST", "/runs/wait", { origin, "content-type": "application/json" }, NOTIFY)).status).toBe(403);
    }
    expect(await sent(ctx.server)).toBe(0);
    expect(await runsStored(ctx.server)).toBe(0);
  });

  it("cannot make a GET by embedding it (an <img>, a frame): no Origin, but Sec-Fetch-Site says cross-site", async () => {
    // A join that cancels the run when its client hangs up: an <img> that loads and drops it would cancel the run.
    const embedded = { "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors", "sec-fetch-dest": "image" };
    const join = await send(ctx.server, "GET", "/threads/t-1/runs/r-1/join?cancel_on_disconnect=true", embedded);
    expect([join.status, join.body.code]).toEqual([403, "ORIGIN_NOT_ALLOWED"]);
    const framed = await send(ctx.server, "GET", "/ui", { "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate", "sec-fetch-dest": "iframe" });
    expect(framed.status).toBe(403);
    // Following a link from another site is the user's own navigation (/ok: the test reads JSON, /ui is HTML).
    expect((await send(ctx.server, "GET", "/ok", { "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" })).status).toBe(200);
    // The viewer's own requests are same-origin.
    expect((await send(ctx.server, "GET", "/info", { "sec-fetch-site": "same-origin", "sec-fetch-mode": "cors", "sec-fetch-dest": "empty" })).status).toBe(200);
  });

  it("cannot reach it through DNS rebinding: a foreign Host is refused (421), /ui included", async () => {
    for (const path of ["/info", "/ui", "/ui/assets/mermaid.min.js", "/agentrt/runs", "/ok"]) {
      const answer = await send(ctx.server, "GET", path, { host: `attacker.example:${ctx.server.port}` });
      expect([path, answer.status, answer.body.code]).toEqual([path, 421, "HOST_NOT_ALLOWED"]);
    }
    const run = await send(ctx.server, "POST", "/runs/wait", { host: "attacker.example", "content-type": "application/json" }, NOTIFY);
    expect(run.status).toBe(421);
    expect(run.body.message).toMatch(/attacker\.example.*--allowed-host/);
    // A resolver that asks DNS for *.localhost would hand a hostile name loopback's trust: only localhost itself has it.
    expect((await send(ctx.server, "GET", "/info", { host: "evil.localhost" })).status).toBe(421);
    expect(await sent(ctx.server)).toBe(0);
    expect(await runsStored(ctx.server)).toBe(0);
  });

  it("refuses a body that is not JSON with 415 even without an Origin (curl, an old browser's form)", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const answer = await send(ctx.server, "POST", "/runs/wait", { "content-type": type }, NOTIFY);
      expect([type, answer.status, answer.body.code]).toEqual([type, 415, "UNSUPPORTED_MEDIA_TYPE"]);
    }
    expect((await send(ctx.server, "POST", "/runs/wait", {}, NOTIFY)).status).toBe(415);
    expect(await sent(ctx.server)).toBe(0);
    expect(await runsStored(ctx.server)).toBe(0);
  });
});

describe("a local web UI and the SDK", () => {
  it("passes the preflights of agent-chat-ui on http://127.0.0.1:8302 (/info, /threads/search) and its requests", async () => {
    const origin = "http://127.0.0.1:8302";
    for (const [path, method] of [["/info", "GET"], ["/threads/search", "POST"], ["/threads/x/runs/stream", "POST"]] as const) {
      const asked = await preflight(ctx.server, path, origin, method);
      expect([path, asked.status]).toEqual([path, 204]);
      expect(asked.headers["access-control-allow-origin"]).toBe(origin);
      expect(String(asked.headers["access-control-allow-methods"])).toContain(method);
      expect(String(asked.headers["access-control-allow-headers"]).toLowerCase()).toContain("x-api-key");
    }
    const info = await send(ctx.server, "GET", "/info", { origin });
    expect(info.status).toBe(200);
    expect(info.headers["access-control-allow-origin"]).toBe(origin);
    const search = await send(ctx.server, "POST", "/threads/search", { origin, "content-type": "application/json" }, JSON.stringify({ limit: 10 }));
    expect(search.status).toBe(200);
    expect(search.headers["access-control-allow-origin"]).toBe(origin);
    // Its errors are readable too.
    const refused = await send(ctx.server, "POST", "/threads/search", { origin, "content-type": "text/plain" }, "{}");
    expect([refused.status, refused.body.code, refused.headers["access-control-allow-origin"]]).toEqual([415, "UNSUPPORTED_MEDIA_TYPE", origin]);
  });

  it("allows every loopback origin on any port and Studio, by default", async () => {
    for (const origin of ["http://localhost:3000", "http://127.0.0.1:5173", "http://[::1]:8080", "http://localhost", "https://localhost:8443", "https://smith.langchain.com"]) {
      const answer = await send(ctx.server, "GET", "/info", { origin });
      expect([origin, answer.status, answer.headers["access-control-allow-origin"]]).toEqual([origin, 200, origin]);
    }
  });

  it("serves every loopback name for its Host, on any port (an SSH tunnel or a dev proxy keeps the browser's Host)", async () => {
    for (const host of ["localhost", `localhost:${ctx.server.port}`, `127.0.0.1:${ctx.server.port}`, `[::1]:${ctx.server.port}`, "localhost:9000", "LOCALHOST.:9000", "127.0.0.2"]) {
      expect([host, (await send(ctx.server, "GET", "/info", { host })).status]).toEqual([host, 200]);
    }
    // The viewer calls its own server: a same-origin request with its Origin.
    const own = `http://localhost:${ctx.server.port}`;
    const viewer = await send(ctx.server, "POST", "/agentrt/runs/run_nope/approve", { host: `localhost:${ctx.server.port}`, origin: own, "content-type": "application/json" }, DECISION);
    expect([viewer.status, viewer.body.code]).toEqual([404, "UNKNOWN_RUN"]);
  });

  it("lets the SDK client run the graph, including its body-less POSTs (cancel), with send_message performed once", async () => {
    const { client } = ctx;
    const before = await sent(ctx.server);
    const done = (await client.runs.wait(null, "order_delay", { input: JSON.parse(NOTIFY).input })) as { result?: string };
    expect(done.result).toMatch(/notified the sales rep/);
    expect(await sent(ctx.server)).toBe(before + 1);
    // runs.cancel sends a POST with no body and no Content-Type.
    const thread = await client.threads.create();
    const asking = await client.runs.create(thread.thread_id, "order_delay", { input: { messages: [{ role: "user", content: "Is my order late?" }] } });
    await client.runs.join(thread.thread_id, asking.run_id);
    await client.runs.cancel(thread.thread_id, asking.run_id);
    expect((await client.runs.get(thread.thread_id, asking.run_id)).metadata).toMatchObject({ agentrt_status: "CANCELED" });
  });
});

describe("widening the defaults", () => {
  const saved = { ...process.env };
  afterEach(async () => {
    for (const name of ["AGENTRT_CORS_ORIGINS", "AGENTRT_ALLOWED_HOSTS"]) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it("adds configured origins (option or AGENTRT_CORS_ORIGINS) to the defaults, localhost and 127.0.0.1 counting alike", async () => {
    process.env.AGENTRT_CORS_ORIGINS = "https://ui.example.com, http://localhost:8302";
    const { server } = await startTestServer({}, GRAPHS);
    onTestFinished(() => server.close());
    for (const origin of ["https://ui.example.com", "http://127.0.0.1:8302", "https://smith.langchain.com", "http://localhost:1234"]) {
      const answer = await preflight(server, "/threads/search", origin);
      expect([origin, answer.status, answer.headers["access-control-allow-origin"]]).toEqual([origin, 204, origin]);
    }
    expect((await send(server, "GET", "/info", { origin: "https://other.example.com" })).status).toBe(403);
    const option = await startTestServer({ corsOrigins: ["https://ops.example.com:8443"] }, GRAPHS);
    onTestFinished(() => option.server.close());
    expect((await send(option.server, "GET", "/info", { origin: "https://ops.example.com:8443" })).status).toBe(200);
    // The option replaces the environment, as a flag does.
    expect((await send(option.server, "GET", "/info", { origin: "https://ui.example.com" })).status).toBe(403);
  });

  it("refuses a malformed origin or '*' without an API key when starting, and allows any origin with '*' and a key", async () => {
    await expect(startTestServer({ corsOrigins: ["ui.example.com"] }, GRAPHS)).rejects.toThrow(/cors origin "ui\.example\.com" must be scheme:\/\/host\[:port\]/);
    await expect(startTestServer({ corsOrigins: ["https://ui.example.com/app"] }, GRAPHS)).rejects.toThrow(/must be scheme:\/\/host\[:port\]/);
    await expect(startTestServer({ corsOrigins: "*" }, GRAPHS)).rejects.toThrow(/refusing cors origin \* without AGENTRT_API_KEY/);
    const { server } = await startTestServer({ corsOrigins: "*", apiKey: "key-for-the-test" }, GRAPHS);
    onTestFinished(() => server.close());
    const answer = await send(server, "GET", "/info", { origin: "https://anywhere.example", "x-api-key": "key-for-the-test" });
    expect(answer.status).toBe(200);
    expect(answer.headers["access-control-allow-origin"]).toBe("*");
  });

  it("accepts allowed Host names (option or AGENTRT_ALLOWED_HOSTS) besides the loopback names", async () => {
    process.env.AGENTRT_ALLOWED_HOSTS = "agentrt.internal";
    const { server } = await startTestServer({}, GRAPHS);
    onTestFinished(() => server.close());
    expect((await send(server, "GET", "/info", { host: `agentrt.internal:${server.port}` })).status).toBe(200);
    expect((await send(server, "GET", "/info", { host: "AGENTRT.internal" })).status).toBe(200);
    expect((await send(server, "GET", "/info", { host: `localhost:${server.port}` })).status).toBe(200);
    expect((await send(server, "GET", "/info", { host: "other.internal" })).status).toBe(421);
    await expect(startTestServer({ allowedHosts: ["agentrt.internal:2024"] }, GRAPHS)).rejects.toThrow(/allowed host "agentrt\.internal:2024" must be a host name/);
  });

  it("bound to every address (with its required key) accepts any Host unless an allow-list narrows it", async () => {
    const key = { "x-api-key": "key-for-the-test" };
    const open = await startTestServer({ host: "0.0.0.0", apiKey: "key-for-the-test" }, GRAPHS);
    onTestFinished(() => open.server.close());
    expect((await send(open.server, "GET", "/info", { ...key, host: "buildbox.lan:2024" })).status).toBe(200);
    // The viewer served as http://buildbox.lan:2024/ui calls its own origin.
    const viewer = { ...key, host: "buildbox.lan:2024", origin: "http://buildbox.lan:2024", "content-type": "application/json" };
    expect((await send(open.server, "POST", "/agentrt/runs/run_nope/approve", viewer, DECISION)).body.code).toBe("UNKNOWN_RUN");
    expect((await send(open.server, "GET", "/info", { ...key, host: "buildbox.lan:2024", origin: "http://other.lan:2024" })).status).toBe(403);
    const narrowed = await startTestServer({ host: "0.0.0.0", apiKey: "key-for-the-test", allowedHosts: ["agentrt.internal"] }, GRAPHS);
    onTestFinished(() => narrowed.server.close());
    expect((await send(narrowed.server, "GET", "/info", { ...key, host: "buildbox.lan" })).status).toBe(421);
    expect((await send(narrowed.server, "GET", "/info", { ...key, host: "agentrt.internal" })).status).toBe(200);
    expect((await send(narrowed.server, "GET", "/info", { ...key, host: `127.0.0.1:${narrowed.server.port}` })).status).toBe(200);
  });

  it("agentrt serve refuses a bad --cors-origin or --allowed-host with one line (exit 2)", async () => {
    for (const [flag, value, reason] of [["--cors-origin", "evil", /cors origin "evil" must be/], ["--allowed-host", "a b", /allowed host "a b" must be a host name/]] as const) {
      const err: string[] = [];
      const code = await main(["serve", flag, value, "--db", ":memory:", "--port", "0"], { out: () => undefined, err: (line) => err.push(line) });
      expect(code).toBe(2);
      expect(err).toHaveLength(1);
      expect(err[0]).toMatch(reason);
    }
  });
});
