/**
 * Turns the driver's connection and server errors into agentrt's storage errors: one line naming the server
 * (never the password), with a stable code, so a CLI command exits 2 instead of printing a stack.
 * @module
 */
import { StorageError } from "../../errors.js";
import { connectionFailure } from "../connection-failure.js";

const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "ETIMEDOUT"]);
const LOST = new Set(["ECONNRESET", "EPIPE", "57P01", "57P02", "57P03", "08000", "08003", "08006"]);

const SSL_REFUSED = /server does not support SSL connections/i;
const SSL_CODES = new Set(["DEPTH_ZERO_SELF_SIGNED_CERT", "SELF_SIGNED_CERT_IN_CHAIN", "UNABLE_TO_VERIFY_LEAF_SIGNATURE", "CERT_HAS_EXPIRED", "ERR_TLS_CERT_ALTNAME_INVALID"]);

/** The {@link StorageError} a failed connect or query means, or undefined for an ordinary SQL error. */
export function postgresFailure(error: unknown, server: string): StorageError | undefined {
  if (error instanceof StorageError) return error;
  const { code, message } = describe(error);
  if (code === "28P01" || code === "28000") {
    return new StorageError("DB_AUTH_FAILED", `${server}: authentication failed (${firstLine(message)})`, { cause: error });
  }
  if (code === "3D000") return new StorageError("DB_OPEN_FAILED", `${server}: ${firstLine(message)}`, { cause: error });
  // An sslmode the server cannot meet (no SSL, an untrusted certificate) is the URL's to change, not a lost connection.
  if (SSL_REFUSED.test(message) || (code !== undefined && SSL_CODES.has(code))) {
    return new StorageError("DB_OPEN_FAILED", `${server}: SSL connection refused (${firstLine(message) || code}); check sslmode in --db`, { cause: error });
  }
  // The pool's own "timeout exceeded when trying to connect": no connection could be made or freed in time.
  if ((code !== undefined && UNREACHABLE.has(code)) || /timeout expired|connection timeout|timeout exceeded when trying to connect/i.test(message)) {
    return new StorageError("DB_UNREACHABLE", `${server}: cannot connect to PostgreSQL (${firstLine(message) || code})`, { cause: error });
  }
  // "Query read timeout": no answer within the pool's query_timeout, so the connection is given up as dead.
  if ((code !== undefined && LOST.has(code)) || /Connection terminated|Client has encountered a connection error|Query read timeout/i.test(message)) {
    return new StorageError("DB_CONNECTION_LOST", `${server}: connection to PostgreSQL lost (${firstLine(message) || code})`, { cause: error });
  }
  return undefined;
}

/** True for a failure a later attempt on a fresh connection may cure. */
export function isConnectionFailure(error: unknown): boolean {
  return connectionFailure(error) !== undefined;
}

function describe(error: unknown): { code: string | undefined; message: string } {
  // An AggregateError (every address of a host refused) carries the reasons in `errors`.
  const inner = error instanceof AggregateError ? error.errors[0] : undefined;
  const source = (inner ?? error) as { code?: unknown; message?: unknown } | null;
  const code = typeof source?.code === "string" ? source.code : undefined;
  const message = typeof source?.message === "string" ? source.message : String(error);
  return { code, message };
}

function firstLine(text: string): string {
  return text.split("\n")[0]?.trim() ?? "";
}
