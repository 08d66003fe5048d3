/**
 * A pooled connection to one schema of a PostgreSQL database, as every agentrt module receives it on PostgreSQL:
 * connects with a timeout, creates its schema when missing, and reports a server it cannot use as a one-line
 * {@link StorageError} instead of hanging or printing the driver's stack.
 * @module
 */
import pg from "pg";
import type { PostgresTarget } from "../database-target.js";
import { inlineParams, type PgStatement } from "./inline-params.js";
import { PostgresNotifications } from "./notifications.js";
import { postgresFailure } from "./pg-errors.js";

/** How to open a PostgreSQL target. */
export interface PostgresDatabaseOptions {
  /** Most connections this process holds. @default the URL's `pool_max`, else 10 */
  maxConnections?: number;
  /** Longest a connect may take before DB_UNREACHABLE. @default the URL's `connect_timeout`, else 5000 */
  connectTimeoutMs?: number;
  /**
   * Longest the server runs one statement before it cancels it itself (`statement_timeout`; a URL's
   * `options=-c statement_timeout=…` overrides it). 0 turns it off. @default 30000
   */
  statementTimeoutMs?: number;
  /**
   * Longest this process waits for the answer to one statement before it gives the connection up as lost
   * (DB_CONNECTION_LOST): a server or network that stops answering never hangs a caller. Keep it above
   * `statementTimeoutMs`, so a statement that is merely slow ends with the server's own cancel. @default 40000
   */
  queryTimeoutMs?: number;
}

/** How long a connection may sit idle inside a transaction before the server ends it (and its locks). */
const IDLE_IN_TRANSACTION_MS = 60_000;
/** Idle time before TCP keepalive probes start: a peer that vanished is noticed by the OS, not at the next statement. */
const KEEPALIVE_DELAY_MS = 10_000;

/** What a module's statements run on: the pool, or one client inside a transaction. */
export interface PgQueryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string | pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/**
 * A transaction's own client (PostgresDatabase.transaction's): it can also hold a statement whose result nobody
 * reads (a fence) to send in front of the transaction's next one, saving its round trip.
 */
export interface PgTransactionClient extends PgQueryable {
  /**
   * Sends `statement` in front of the next statement (or COMMIT), in one send; if it fails, that send fails with
   * what `failure` makes of the error (the error itself when not its own). False, and nothing held, when its values
   * cannot be written in as literals: then run it yourself.
   */
  sendWithNext(statement: { text: PgStatement; values?: unknown[] }, failure: (error: unknown) => unknown): boolean;
}

/** One schema of a PostgreSQL database, reached through a connection pool. */
export class PostgresDatabase implements PgQueryable {
  /** The schema every table lives in (always a plain lower-case identifier). */
  readonly schema: string;
  /** `user@host:port/database`, for messages. */
  readonly server: string;
  readonly pool: pg.Pool;
  #ready: Promise<void> | undefined;
  #closed = false;
  #notifications: PostgresNotifications | undefined;
  readonly #listenConnection: { connectionString: string; options: string; connectTimeoutMs: number };
  readonly #maxConnections: number;

  constructor(target: PostgresTarget, options: PostgresDatabaseOptions = {}) {
    this.schema = target.schema;
    this.server = target.server;
    const settings = [
      // Every connection starts in the schema: no statement names it, and no extra round trip sets it.
      `-c search_path=${target.schema}`,
      // The server's own limits, as options so the URL's options (after them) can override them: a statement stuck
      // behind a lock, or a transaction whose process froze or was cut off, must not hold its locks for ever.
      `-c statement_timeout=${options.statementTimeoutMs ?? 30_000}`,
      `-c idle_in_transaction_session_timeout=${IDLE_IN_TRANSACTION_MS}`,
      ...(target.options === undefined ? [] : [target.options]),
    ];
    this.#listenConnection = { connectionString: target.connectionString, options: settings.join(" "), connectTimeoutMs: options.connectTimeoutMs ?? target.connectTimeoutMs ?? 5000 };
    this.#maxConnections = options.maxConnections ?? target.maxConnections ?? 10;
    this.pool = new pg.Pool({
      connectionString: target.connectionString,
      max: this.#maxConnections,
      connectionTimeoutMillis: options.connectTimeoutMs ?? target.connectTimeoutMs ?? 5000,
      options: settings.join(" "),
      // Only the client's own timer ends a wait on a server or network that stopped answering altogether.
      query_timeout: options.queryTimeoutMs ?? 40_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
      application_name: "agentrt",
    });
    // An idle client's connection dropping (a server restart) must not crash the process: the pool drops that
    // client, and the next statement connects anew.
    this.pool.on("error", () => undefined);
    // And a checked-out client must never end it either: pg-pool removes its own listener while a client is lent out
    // and guards pool.query with a `once` listener, so a second 'error' of one dying connection (a server restart's
    // FATAL, then the socket's) went unhandled and killed a worker. The failure still reaches the statement under way.
    this.pool.on("connect", (client) => client.on("error", () => undefined));
  }

  /** Connects once and creates the schema when missing; rejects with DB_UNREACHABLE, DB_AUTH_FAILED, … */
  ready(): Promise<void> {
    this.#ready ??= this.#connect().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  /** One statement on any pooled connection; connection failures become storage errors. */
  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string | pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult<R>> {
    const client = await this.#acquire();
    let broken: Error | undefined;
    try {
      return await client.query<R>(text, values);
    } catch (error) {
      const failure = postgresFailure(error, this.server);
      // As pg-pool's own query(): a connection that failed is discarded, not lent out again.
      if (failure !== undefined && failure.code !== "DB_OPEN_FAILED") broken = failure;
      throw failure ?? error;
    } finally {
      client.release(broken);
    }
  }

  /** True while every pooled connection is lent out and callers wait for one: a caller that can, should ask less. */
  get saturated(): boolean {
    return this.pool.waitingCount > 0;
  }

  /**
   * A pooled client. Waiting for one that is lent out is backpressure, not an outage: when the pool's wait ends
   * with every connection lent out, the wait goes on (each statement holding one is bounded by the server's and
   * the client's timeouts). Only a connection that cannot be made is DB_UNREACHABLE.
   */
  async #acquire(): Promise<pg.PoolClient> {
    for (;;) {
      const full = () => this.pool.totalCount >= this.#maxConnections && this.pool.idleCount === 0;
      try {
        return await this.pool.connect();
      } catch (error) {
        if (!(isPoolWaitTimeout(error) && full() && !this.#closed)) throw postgresFailure(error, this.server) ?? error;
      }
    }
  }

  /**
   * Runs `work` inside BEGIN … COMMIT on one client, rolling back when it throws. A client whose connection
   * failed is discarded rather than returned to the pool; the server rolls its transaction back. A connection
   * lost during COMMIT is DB_CONNECTION_LOST though the commit may have happened. `begin`: parameterless
   * statements sent with BEGIN and work's first statement in the same round trip (e.g. taking an advisory lock);
   * without it, BEGIN rides with work's first statement alone. `last`: a statement run after work, sent with COMMIT in the same round trip.
   */
  async transaction<T>(work: (client: PgTransactionClient) => Promise<T>, options: { begin?: string; last?: { text: PgStatement; values?: unknown[] } } = {}): Promise<T> {
    const client = await this.#acquire();
    let broken: unknown;
    // A checked-out client has no listener of the pool's: its connection dying between statements (idle in the
    // transaction) would be an unhandled 'error' that ends the process. Its next statement fails instead.
    const onError = (error: unknown) => (broken ??= error);
    client.on("error", onError);
    try {
      const tx = new LazyBegin(client);
      if (options.begin !== undefined) tx.begin(options.begin);
      const result = await work(tx);
      await tx.commit(options.last);
      return result;
    } catch (error) {
      // The dead connection's own error says more than the "not queryable" of the statement tried after it.
      const failure = postgresFailure(broken ?? error, this.server);
      if (failure !== undefined && failure.code !== "DB_OPEN_FAILED") broken = failure;
      else await client.query("ROLLBACK").catch((rollbackError: unknown) => (broken = rollbackError));
      throw failure ?? error;
    } finally {
      client.off("error", onError);
      client.release(broken instanceof Error ? broken : undefined);
    }
  }

  /** This process's LISTEN connection to the database (opened at the first listen, closed with the pool). */
  get notifications(): PostgresNotifications {
    this.#notifications ??= new PostgresNotifications(this.#listenConnection);
    return this.#notifications;
  }

  /** Closes every pooled connection and the LISTEN connection; later queries fail. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#notifications?.close();
    await this.pool.end();
  }

  async #connect(): Promise<void> {
    // Concurrent first opens would race on pg_namespace; IF NOT EXISTS still raises 23505 for the loser.
    try {
      await this.query(`CREATE SCHEMA IF NOT EXISTS ${this.schema}`);
    } catch (error) {
      if ((error as { code?: unknown }).code !== "23505") throw error;
    }
  }
}

/**
 * A transaction's client that sends BEGIN with the first statement, and COMMIT with the last one it is given, when
 * their values can be written in as literals (one round trip each instead of two); otherwise on their own. A
 * statement handed to {@link LazyBegin.sendWithNext} waits and travels in front of the next send.
 */
class LazyBegin implements PgTransactionClient {
  readonly #client: pg.PoolClient;
  #begun = false;
  #held: { text: string; failure: (error: unknown) => unknown }[] = [];

  constructor(client: pg.PoolClient) {
    this.#client = client;
  }

  /** Statements to run first: they travel with BEGIN and the transaction's first statement (one send). */
  begin(statements: string): void {
    this.#held.push({ text: statements, failure: (error) => error });
  }

  sendWithNext(statement: { text: PgStatement; values?: unknown[] }, failure: (error: unknown) => unknown): boolean {
    const inlined = inlineParams(statement.text, statement.values);
    if (inlined === undefined) return false;
    this.#held.push({ text: inlined.text, failure });
    return true;
  }

  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string | pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult<R>> {
    if (this.#begun && this.#held.length === 0) return this.#client.query<R>(text, values);
    // Inlined, it goes in one send with BEGIN. Sent with parameters it waits for BEGIN (below), so a transaction's
    // statements must be awaited in turn, as every caller does: one issued meanwhile would overtake it.
    const inlined = inlineParams(text as PgStatement, values);
    if (inlined !== undefined) return lastResult<R>(this.#send(inlined.text, inlined.options));
    // The statement waits for BEGIN: run after a failed one it would autocommit, outside the transaction and its fence.
    return this.#send().then(() => this.#client.query<R>(text, values));
  }

  /** COMMIT, after `last` (in the same send when it can be); nothing when no statement ran and none is left. */
  async commit(last?: { text: PgStatement; values?: unknown[] }): Promise<void> {
    if (last === undefined) {
      if (this.#held.length > 0) await this.#send("COMMIT");
      else if (this.#begun) await this.#client.query("COMMIT");
      return;
    }
    const inlined = inlineParams(last.text, last.values);
    if (inlined === undefined) {
      await this.query(last.text as string | pg.QueryConfig, last.values);
      await this.#client.query("COMMIT");
      return;
    }
    await this.#send(`${inlined.text}; COMMIT`, inlined.options);
  }

  /** One send: BEGIN unless sent, the held statements, then `text`; a held statement's failure says what it means. */
  async #send(text?: string, options: Record<string, unknown> = {}): Promise<unknown> {
    const held = this.#held.splice(0);
    const parts = [...(this.#begun ? [] : ["BEGIN"]), ...held.map((h) => h.text), ...(text === undefined ? [] : [text])];
    this.#begun = true;
    if (parts.length === 0) return undefined;
    try {
      return await this.#client.query({ ...options, text: parts.join("; ") });
    } catch (error) {
      for (const h of held) {
        const meant = h.failure(error);
        if (meant !== error) throw meant;
      }
      throw error;
    }
  }
}

/** pg-pool's end of a wait in its queue (no connection was freed in time), as opposed to a connect that failed. */
function isPoolWaitTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === "timeout exceeded when trying to connect";
}

/** The answer to a multi-statement send's last statement (pg answers such a send with one result per statement). */
async function lastResult<R extends pg.QueryResultRow>(sent: Promise<unknown>): Promise<pg.QueryResult<R>> {
  const results = (await sent) as pg.QueryResult<R> | pg.QueryResult<R>[];
  return (Array.isArray(results) ? results[results.length - 1] : results) as pg.QueryResult<R>;
}
