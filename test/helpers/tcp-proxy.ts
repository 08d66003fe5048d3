// A TCP proxy to the PostgreSQL test server that a test can cut off: a server or network that stops answering.
// `freeze`/`thaw` lose what is sent meanwhile (the connections die, as after an outage); `partition`/`heal` hold it
// and deliver it when the network heals, as TCP does after a partition shorter than its timeouts — so a statement a
// cut-off process sent arrives late, after other processes moved on.
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { TEST_PG_URL } from "./postgres.js";

/** A running proxy; see the module comment. */
export interface PostgresProxy {
  /** `url` (a test server URL) rewritten to go through the proxy. */
  url(url: string): string;
  /** Stops passing bytes either way; what is sent until {@link thaw} is lost. */
  freeze(): void;
  /** Passes bytes again and drops every connection (whatever was sent while frozen is gone). */
  thaw(): void;
  /** Stops passing bytes either way, holding them (and closes) for {@link heal}. */
  partition(): void;
  /** Delivers what was held, in order, then passes bytes again. */
  heal(): void;
  close(): Promise<void>;
}

interface Pipe {
  from: Socket;
  to: Socket;
  held: Buffer[];
  /** `from` closed while partitioned: `to` is ended once the held bytes are delivered. */
  endHeld: boolean;
}

/** Starts a proxy to the test server on a free port. */
export async function postgresProxy(): Promise<PostgresProxy> {
  const target = new URL(TEST_PG_URL);
  const sockets = new Set<Socket>();
  const pipes: Pipe[] = [];
  let mode: "open" | "frozen" | "partitioned" = "open";
  const pipe = (from: Socket, to: Socket): void => {
    const p: Pipe = { from, to, held: [], endHeld: false };
    pipes.push(p);
    from.on("data", (chunk: Buffer) => {
      if (mode === "open") to.write(chunk);
      else if (mode === "partitioned") p.held.push(chunk);
    });
    from.on("close", () => {
      if (mode === "partitioned") p.endHeld = true;
      else to.end();
    });
  };
  const server: Server = createServer((inbound) => {
    const outbound = createConnection(Number(target.port || 5432), target.hostname);
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => sockets.delete(socket));
    }
    pipe(inbound, outbound);
    pipe(outbound, inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: (url) => url.replace(/@[^/]+\//, `@127.0.0.1:${port}/`),
    freeze: () => (mode = "frozen"),
    thaw: () => {
      mode = "open";
      for (const socket of sockets) socket.destroy();
    },
    partition: () => (mode = "partitioned"),
    heal: () => {
      mode = "open";
      for (const p of pipes.splice(0)) {
        for (const chunk of p.held.splice(0)) if (!p.to.destroyed) p.to.write(chunk);
        if (p.endHeld) p.to.end();
        else pipes.push(p);
      }
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
