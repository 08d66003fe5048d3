/**
 * `agentrt serve`: the Agent Server API over one SQLite file or PostgreSQL
 * schema. Opens the runtime with a stream bus (SQLite) or reads the shared
 * chunk log (PostgreSQL: runs stream from any process), runs a worker in-process for
 * queued and recovered runs, optionally forks worker processes on the same
 * database (one event loop per core), and listens with @hono/node-server.
 * @module
 */
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { serve, type ServerType } from "@hono/node-server";
import { DEFAULT_SQLITE_PATH, isPostgresUrl, MEMORY_PATH } from "../db/index.js";
import { UserInputError } from "../errors.js";
import type { Worker } from "../runs/index.js";
import { Runtime, StreamBus } from "../runtime/index.js";
import { runtimeInternals } from "../runtime/internals.js";
import { describeCallers, parseApiKeys } from "./auth.js";
import { createApp } from "./app.js";
import { hostPolicy, isLoopback } from "./host-check.js";
import { originPolicy } from "./origin-check.js";
import { FallbackWorker } from "./fallback-worker.js";
import { RunService } from "./run-service.js";
import { busStreams, type RunStreams } from "./run-streams.js";
import { ChunkFeed } from "../streams/chunk-feed.js";
import { ThreadStateReader } from "./thread-state.js";
import { openThreadStore } from "./open-thread-store.js";
import { RunBackedThreads } from "./run-backed-threads.js";
import { WorkerPool, workerCount, type WorkerInfo } from "./worker-pool.js";

/** Options of {@link startServer}. */
export interface ServeOptions {
  /** @default 2024 */
  port?: number;
  /** @default "127.0.0.1" */
  host?: string;
  /** SQLite file or `postgres://…?schema=…` URL. @default "./agentrt.db" */
  db?: string;
  /** langgraph.json. @default env AGENTRT_CONFIG, else "./langgraph.json" */
  config?: string;
  /** Accepted keys (see parseApiKeys). @default env AGENTRT_API_KEY */
  apiKey?: string;
  /**
   * Web origins allowed besides the defaults (pages on loopback, any port, and Studio), or "*" (needs an API key).
   * @default env AGENTRT_CORS_ORIGINS (comma-separated)
   */
  corsOrigins?: readonly string[] | "*";
  /**
   * Host names answered besides the loopback names and the listening address, or "*"; listening on every interface,
   * any name is answered unless this is set. @default env AGENTRT_ALLOWED_HOSTS (comma-separated)
   */
  allowedHosts?: readonly string[] | "*";
  /** @default 1048576 */
  maxBodyBytes?: number;
  /**
   * Runs a worker executes at once: the in-process one (queued and recovered runs) and each worker process.
   * @default 16 in-process; 32 per worker process (its loop serves no HTTP; with 16 a loaded worker was capped
   * by it, at 64 runs starved behind each other)
   */
  workerConcurrency?: number;
  /**
   * Worker processes to fork on the same database: runs.wait and background runs go to them, streamed
   * runs stay here. A number, or "auto" (one per core). @default env AGENTRT_SERVE_WORKERS, else 0
   */
  workers?: number | "auto";
  /**
   * On PostgreSQL, how long the stream chunks of a run are kept after it rested, for reconnects (ms).
   * @default env AGENTRT_STREAM_RETENTION_MS, else 3600000 (1 h)
   */
  streamRetentionMs?: number;
  /** Diagnostics. @default one line on stderr */
  log?: (line: string) => void;
}

/** A listening server. */
export interface AgentServer {
  readonly url: string;
  readonly port: number;
  readonly runtime: Runtime;
  /** The worker processes alive now (none without `workers`). */
  readonly workers: readonly WorkerInfo[];
  /** Stops listening, stops the worker processes, releases the in-process worker's runs and closes the database. */
  close(): Promise<void>;
}

/** A comma-separated list from the environment; undefined when unset or empty. */
function listFromEnv(name: string): readonly string[] | "*" | undefined {
  const value = process.env[name];
  if (value === undefined || value.trim() === "") return undefined;
  return value.trim() === "*" ? "*" : value.split(",").map((s) => s.trim()).filter((s) => s !== "");
}

/**
 * Starts the server; refuses a non-loopback host or cors origin "*" without an API key, and a malformed origin or
 * host name, before opening anything.
 * @example const server = await startServer({ port: 0, db: "/tmp/a.db" }); console.log(server.url);
 */
export async function startServer(options: ServeOptions = {}): Promise<AgentServer> {
  const host = options.host ?? "127.0.0.1";
  const keys = parseApiKeys(options.apiKey ?? process.env.AGENTRT_API_KEY);
  if (!isLoopback(host) && keys.length === 0) {
    throw new UserInputError("BAD_INPUT", `refusing to listen on ${host} without AGENTRT_API_KEY: anyone on the network could run graphs and approve actions`);
  }
  const origins = options.corsOrigins === undefined ? originPolicy(listFromEnv("AGENTRT_CORS_ORIGINS"), "AGENTRT_CORS_ORIGINS: cors origin")
    : originPolicy(options.corsOrigins);
  if (origins.any && keys.length === 0) {
    throw new UserInputError("BAD_INPUT", "refusing cors origin * without AGENTRT_API_KEY: any web page could run graphs and approve actions");
  }
  const hosts = options.allowedHosts === undefined ? hostPolicy(host, listFromEnv("AGENTRT_ALLOWED_HOSTS"), "AGENTRT_ALLOWED_HOSTS: allowed host")
    : hostPolicy(host, options.allowedHosts);
  const log = options.log ?? ((line: string) => process.stderr.write(`agentrt serve: ${line}\n`));
  const workers = options.workers === undefined ? workerCount(process.env.AGENTRT_SERVE_WORKERS, "AGENTRT_SERVE_WORKERS") : workerCount(options.workers, "workers");
  if (workers > 0 && (options.db === MEMORY_PATH || options.db === "")) {
    // Another process cannot open this process's private in-memory database: its runs would wait forever.
    throw new UserInputError("BAD_INPUT", "worker processes need a database file; :memory: is private to this process (use --workers 0)");
  }
  const concurrency = options.workerConcurrency ?? 16;
  const processConcurrency = options.workerConcurrency ?? 32;
  // On PostgreSQL the runtime publishes to the shared chunk log (any process may stream a run); on SQLite, to this bus.
  const bus = isPostgresUrl(options.db ?? "") ? undefined : new StreamBus();
  let service: RunService | undefined;
  let streams: RunStreams | undefined;
  const runtime = Runtime.open({ db: options.db, config: options.config ?? process.env.AGENTRT_CONFIG, streams: bus, onEvent: (e) => service?.waiters.onRuntimeEvent(e) });
  const pool = workers === 0 ? undefined : new WorkerPool({
    count: workers,
    // A file is named absolutely for the forks; a PostgreSQL URL is passed as it is.
    spec: { db: isPostgresUrl(options.db ?? "") ? (options.db ?? "") : resolve(options.db ?? DEFAULT_SQLITE_PATH), config: options.config ?? process.env.AGENTRT_CONFIG, concurrency: processConcurrency, pollMs: 100 },
    idPrefix: `serve_${process.pid}`,
    onRest: (runId, _status, values) => service?.waiters.rested(runId, values),
    onStall: (runId, stall) => service?.waiters.stalled(runId, stall),
    log,
  });
  try {
    // The server's own tables and its checkpoint reader live on the runtime's database (on SQLite, one file, one writer lock).
    // Migrated before any worker process starts, so none races the server's migrations (instant on SQLite).
    await runtime.ready();
    const { storage } = runtimeInternals(runtime);
    // Threads of runs started without HTTP (CLI, Runtime, workers) read like any other (run-backed-threads.ts).
    const states = new ThreadStateReader(runtime.registry, storage.checkpointer());
    const threads = new RunBackedThreads(await openThreadStore(storage.db), runtime.records, async (id) => (await states.storedCheckpoint(id)) !== undefined);
    service = new RunService(runtime, threads, states, log, pool);
    streams = storage.chunks === undefined ? busStreams(bus ?? new StreamBus()) : new ChunkFeed(storage.chunks, { retentionMs: streamRetention(options), log });
  } catch (error) {
    await runtime.close();
    throw error;
  }
  const app = createApp({ service, streams, log }, { keys, hosts, origins, maxBodyBytes: options.maxBodyBytes });
  // Queued and recovered runs; with worker processes, only while none of them is ready (see FallbackWorker).
  const local = pool === undefined ? alwaysOn(runtime.worker({ concurrency, pollMs: 100 })) : new FallbackWorker(() => runtime.worker({ concurrency, pollMs: 100 }), () => pool.ready);
  let server: ServerType;
  try {
    server = await listen(app.fetch, options.port ?? 2024, host);
  } catch (error) {
    await Promise.all([pool?.stop(), local.stop()]);
    await runtime.close();
    const code = (error as { code?: unknown }).code;
    if (code === "EADDRINUSE" || code === "EACCES" || code === "EADDRNOTAVAIL") {
      const why = code === "EADDRINUSE" ? "is already in use" : code === "EACCES" ? "needs privileges this process lacks" : "is not an address of this machine";
      throw new UserInputError("BAD_INPUT", `cannot listen on ${host}:${options.port ?? 2024}: the ${code === "EADDRNOTAVAIL" ? "host" : "port"} ${why} (${code})`, { cause: error });
    }
    throw error;
  }
  // Forked once listening (forks cost the start ~10 ms each; until a worker is ready runs execute here) and
  // once the database is migrated (runtime.ready above), so workers never race the server's migrations.
  pool?.start();
  // Said once at start, so a key misread as user:key is seen before a client is refused.
  if (keys.length > 0) log(`API keys for callers ${describeCallers(keys)}`);
  const port = (server.address() as AddressInfo).port;
  // Keep idle client connections for a minute (clients honour the Keep-Alive hint): a busy loop
  // accepts one new connection per turn, so reconnecting clients would queue behind each other.
  const http = server as { keepAliveTimeout?: number; headersTimeout?: number };
  http.keepAliveTimeout = 65_000;
  http.headersTimeout = 66_000;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    runtime,
    get workers() {
      return pool?.workers ?? [];
    },
    close: () => (closing ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Open SSE streams would hold close() forever.
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      await closed;
      service.waiters.close();
      await streams.close();
      await Promise.all([pool?.stop(), local.stop()]);
      // Runs executing here outside the worker loop (streamed, resumed, waited on) are handed back too.
      await runtime.handBack();
      await runtime.close();
    })()),
  };
}

/** The chunk retention asked for, or undefined for the default; BAD_INPUT for a value that is not a positive integer. */
function streamRetention(options: ServeOptions): number | undefined {
  const value = options.streamRetentionMs ?? process.env.AGENTRT_STREAM_RETENTION_MS;
  if (value === undefined || value === "") return undefined;
  const ms = Number(value);
  if (!Number.isSafeInteger(ms) || ms <= 0) throw new UserInputError("BAD_INPUT", `stream retention must be a positive number of ms, got ${String(value)}`);
  return ms;
}

/** The in-process worker of a server without worker processes: always claiming; stopping hands its runs back. */
function alwaysOn(worker: Worker): { stop(): Promise<void> } {
  const working = worker.run();
  return {
    stop: async () => {
      await worker.stop({ abort: true });
      await working;
    },
  };
}

function listen(fetch: (request: Request) => Response | Promise<Response>, port: number, hostname: string): Promise<ServerType> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, port, hostname }, () => resolve(server));
    server.once("error", reject);
  });
}
