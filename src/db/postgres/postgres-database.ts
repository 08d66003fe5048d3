/**
 * A pooled connection to one schema of a PostgreSQL database, as every agentrt module receives it on PostgreSQL:
 * connects with a timeout, creates its schema when missing, and reports a server it cannot use as a one-line
 * {@link StorageError} instead of hanging or printing the driver's stack.
 * @module
 */
import pg from "pg";
import type { PostgresTarget } from "../database-target.js";
import { postgresFailure } from "./pg-errors.js";

/** How to open a PostgreSQL target. */
export interface PostgresDatabaseOptions {
  /** Most connections this process holds. @default 10 */
  maxConnections?: number;
  /** Longest a connect may take before DB_UNREACHABLE. @default 5000 */
  connectTimeoutMs?: number;
}

/** What a module's statements run on: the pool, or one client inside a transaction. */
export interface PgQueryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string | pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult<R>>;
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

  constructor(target: PostgresTarget, options: PostgresDatabaseOptions = {}) {
    this.schema = target.schema;
    this.server = target.server;
    this.pool = new pg.Pool({
      connectionString: target.connectionString,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      // Every connection starts in the schema: no statement names it, and no extra round trip sets it.
      options: `-c search_path=${target.schema}${target.options === undefined ? "" : ` ${target.options}`}`,
      application_name: "agentrt",
    });
    // An idle client's connection dropping (a server restart) must not crash the process; the next query reconnects.
    this.pool.on("error", () => undefined);
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
    try {
      return await this.pool.query<R>(text, values);
    } catch (error) {
      throw postgresFailure(error, this.server) ?? error;
    }
  }

  /**
   * Runs `work` inside BEGIN … COMMIT on one client, rolling back when it throws. A client whose connection
   * failed is discarded rather than returned to the pool. `begin`: parameterless statements sent with BEGIN in the
   * same round trip (e.g. taking an advisory lock).
   */
  async transaction<T>(work: (client: PgQueryable) => Promise<T>, options: { begin?: string } = {}): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw postgresFailure(error, this.server) ?? error;
    }
    let broken: unknown;
    try {
      await client.query(options.begin === undefined ? "BEGIN" : `BEGIN; ${options.begin}`);
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      const failure = postgresFailure(error, this.server);
      if (failure !== undefined && failure.code !== "DB_OPEN_FAILED") broken = failure;
      else await client.query("ROLLBACK").catch((rollbackError: unknown) => (broken = rollbackError));
      throw failure ?? error;
    } finally {
      client.release(broken instanceof Error ? broken : undefined);
    }
  }

  /** Closes every pooled connection; later queries fail. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
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
