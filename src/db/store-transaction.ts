/**
 * The transaction one module's write runs in, handed to another module so its check or rows commit (or roll back)
 * together with that write: a run's lease fence inside a checkpoint's or a ledger intent's transaction.
 * @module
 */
import type { PgQueryable } from "./postgres/index.js";
import type { SqliteDatabase } from "./open-database.js";

/**
 * An open transaction: the SQLite connection inside its write transaction (synchronous: it cannot span an
 * await), or the PostgreSQL transaction's own client. `withWrite`: the transaction's next send is its one write
 * (a checkpoint's), so a check may travel in front of it and fail it instead of costing a round trip of its own.
 */
export type StoreTransaction = { backend: "sqlite"; db: SqliteDatabase } | { backend: "postgres"; client: PgQueryable; withWrite?: boolean };
