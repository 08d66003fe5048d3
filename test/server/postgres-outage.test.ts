// A server on PostgreSQL whose database goes away: requests are answered 503 with the connection failure's stable
// code (not 500 INTERNAL), the process stays up, and once PostgreSQL answers again so does the server.
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { describe, expect, it, onTestFinished } from "vitest";
import { TEST_PG_URL, useTestSchema } from "../helpers/postgres.js";
import { httpCall } from "./http-call.js";
import { startTestServer } from "./harness.js";

const schema = useTestSchema(import.meta.url);

/** A TCP proxy to the test server on a fixed port: `down()` drops every connection and refuses new ones, `up()` listens again. */
async function outageProxy(): Promise<{ url: string; down: () => Promise<void>; up: () => Promise<void> }> {
  const target = new URL(TEST_PG_URL);
  const sockets = new Set<Socket>();
  const listen = async (port: number): Promise<Server> => {
    const server = createServer((inbound) => {
      const outbound = createConnection(Number(target.port || 5432), target.hostname);
      for (const socket of [inbound, outbound]) {
        sockets.add(socket);
        socket.on("error", () => undefined);
        socket.on("close", () => sockets.delete(socket));
      }
      inbound.pipe(outbound);
      outbound.pipe(inbound);
      inbound.on("close", () => outbound.destroy());
      outbound.on("close", () => inbound.destroy());
    });
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    return server;
  };
  let server: Server | undefined = await listen(0);
  const { port } = server.address() as { port: number };
  const down = async () => {
    const closing = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (closing !== undefined) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };
  onTestFinished(down);
  return {
    url: schema.url.replace(/@[^/]+\//, `@127.0.0.1:${port}/`),
    down,
    up: async () => {
      server ??= await listen(port);
    },
  };
}

describe("a server whose PostgreSQL goes away", () => {
  it("answers 503 with DB_UNREACHABLE or DB_CONNECTION_LOST while it is down, and serves again once it is back", async () => {
    const proxy = await outageProxy();
    const { server } = await startTestServer({ db: proxy.url });
    onTestFinished(() => server.close());
    const created = await httpCall(server.url, "POST", "/threads", { metadata: { k: "v" } });
    expect(created.status).toBe(200);
    const threadId = created.json.thread_id!;

    await proxy.down();
    for (const [method, path, body] of [["GET", `/threads/${threadId}`], ["POST", "/threads", {}], ["POST", "/threads/search", {}]] as const) {
      const answer = await httpCall(server.url, method, path, body);
      expect(answer.status).toBe(503);
      expect(answer.json.code).toMatch(/^DB_(UNREACHABLE|CONNECTION_LOST)$/);
      expect(answer.json.message).not.toMatch(/password/i);
    }

    await proxy.up();
    const again = await httpCall(server.url, "GET", `/threads/${threadId}`);
    expect(again.status).toBe(200);
    expect(again.json.metadata).toMatchObject({ k: "v" });
  }, 60_000);
});
