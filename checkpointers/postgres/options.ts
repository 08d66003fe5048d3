import type { RunnableConfig } from "@langchain/core/runnables";
import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";
import type { PgTransactionClient } from "../../src/db/postgres/index.js";

/**
 * Runs inside each put/putWrites transaction, before its rows are written, on the transaction's own client:
 * throw (or reject) to refuse the write (it rolls back and the error reaches the caller as thrown), or write rows
 * of your own tables through `client` so they commit with the checkpoint; return a function to be called (with
 * the error) if the transaction then fails. agentrt's runtime checks the run's fencing token here, handing its
 * check to `client.sendWithNext` so it travels with the write: one round trip for the whole transaction.
 */
export type PostgresBeforeWrite = (client: PgTransactionClient, config: RunnableConfig) => Promise<void | ((error: unknown) => void)> | void | ((error: unknown) => void);

/** Behaviour of a PostgresSaver, whoever opened its database. */
export interface PostgresSaverBehaviour {
  /**
   * The fence hook; without it, put and putWrites are each one statement (atomic on its own, one round trip);
   * with it, BEGIN, the hook, that statement, COMMIT.
   * @default none
   */
  beforeWrite?: PostgresBeforeWrite;
}

/** How {@link PostgresSaver.fromConnString} opens its database. */
export interface PostgresSaverOptions extends PostgresSaverBehaviour {
  /** The schema the tables live in (created when missing); overrides the URL's `schema` parameter. @default the URL's, else "public" */
  schema?: string;
  /** Serializer for channel values, writes and metadata. @default new JsonPlusSerializer() */
  serde?: SerializerProtocol;
  /** Most pooled connections. @default 10 */
  maxConnections?: number;
}
