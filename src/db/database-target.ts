/**
 * What `--db`, `Runtime.open({ db })` and `AGENTRT_DATABASE_URL` name: a SQLite file (a path, or nothing) or a
 * PostgreSQL server (a `postgres://` or `postgresql://` URL, its `schema` parameter choosing the schema).
 * @module
 */
import { userInfo } from "node:os";
import { StorageError } from "../errors.js";

/** A SQLite file. */
export interface SqliteTarget {
  kind: "sqlite";
  path: string;
}

/** A PostgreSQL database and the schema agentrt's tables live in. */
export interface PostgresTarget {
  kind: "postgres";
  /** The URL as the driver takes it: the `schema` and `options` parameters removed, the password kept. */
  connectionString: string;
  /** The URL's `options` parameter (server settings such as `-c synchronous_commit=off`), passed on beside agentrt's own. */
  options?: string;
  /** The schema every table is created in; created when missing. @default "public" */
  schema: string;
  /** `user@host:port/database` for messages: never the password. */
  server: string;
  /** The URL's `pool_max` parameter: most connections one process's pool holds. @default none (the pool's 10) */
  maxConnections?: number;
  /** The URL's `connect_timeout` (seconds, as libpq's) in ms: longest a connect, or a wait for a pooled connection's first turn, takes. */
  connectTimeoutMs?: number;
}

/** Where agentrt keeps its state. */
export type DatabaseTarget = SqliteTarget | PostgresTarget;

/** The SQLite file used when nothing is named. */
export const DEFAULT_SQLITE_PATH = "./agentrt.db";

// Unquoted PostgreSQL identifiers fold to lower case; allowing only these keeps every statement's schema literal safe.
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

// PostgreSQL refuses to create schemas named pg_…; pg_catalog, pg_toast and pg_temp exist but hold no agentrt tables.
const RESERVED_SCHEMA = /^(pg_|information_schema$)/;

// Settings that would move agentrt's tables out of ?schema= (search_path) or act as another role than the URL's user.
const PINNED_SETTINGS = new Set(["search_path", "role", "session_authorization"]);

/**
 * The first setting among {@link PINNED_SETTINGS} that an `options` value sets, in any of libpq's forms
 * (`-c name=v`, `-cname=v`, `--name=v`; names case-insensitive, `-` for `_`), or undefined.
 */
function overridingSetting(options: string): string | undefined {
  const tokens = options.trim().split(/\s+/);
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i] ?? "";
    const assignment = token === "-c" ? tokens[(i += 1)] ?? "" : token.startsWith("--") ? token.slice(2) : token.startsWith("-c") ? token.slice(2) : "";
    const name = assignment.split("=")[0]?.trim().toLowerCase().replaceAll("-", "_") ?? "";
    if (PINNED_SETTINGS.has(name)) return name;
  }
  return undefined;
}

/** True when `value` is a PostgreSQL URL rather than a file path. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/**
 * The target `value` names; nothing means `AGENTRT_DATABASE_URL` when set, else `./agentrt.db`.
 * A malformed URL or schema name is DB_URL_INVALID (exit 2), naming the server but never the password.
 */
export function parseDatabaseTarget(value?: string, env: NodeJS.ProcessEnv = process.env): DatabaseTarget {
  const named = value ?? nonEmpty(env.AGENTRT_DATABASE_URL) ?? DEFAULT_SQLITE_PATH;
  if (!isPostgresUrl(named)) return { kind: "sqlite", path: named };
  let url: URL;
  try {
    url = new URL(named);
  } catch {
    throw new StorageError("DB_URL_INVALID", `not a valid PostgreSQL URL: ${withoutPassword(named)}`);
  }
  const schema = url.searchParams.get("schema") ?? "public";
  if (!SCHEMA_NAME.test(schema)) {
    throw new StorageError("DB_URL_INVALID", `${serverOf(url)}: schema "${schema}" is not a lower-case identifier (a-z, 0-9, _; at most 63 characters)`);
  }
  if (RESERVED_SCHEMA.test(schema)) {
    throw new StorageError("DB_URL_INVALID", `${serverOf(url)}: schema "${schema}" is reserved by PostgreSQL (pg_… and information_schema): name a schema of your own`);
  }
  url.searchParams.delete("schema");
  // libpq's default user (PGUSER, else the OS user): the driver reads only $USER, which a container or service may not set.
  if (url.username === "") url.username = encodeURIComponent(nonEmpty(env.PGUSER) ?? osUser());
  // The driver lets a URL's options replace the pool's: kept apart (and refused above when they would move the
  // search path or the role) so the schema's search_path is never lost.
  const options = url.searchParams.get("options") ?? undefined;
  const overriding = options === undefined ? undefined : overridingSetting(options);
  if (overriding !== undefined) {
    throw new StorageError("DB_URL_INVALID", `${serverOf(url)}: options may not set ${overriding}: agentrt sets the search path from ?schema= and connects as the URL's user`);
  }
  url.searchParams.delete("options");
  const maxConnections = positiveParam(url, "pool_max", true);
  const connectTimeout = positiveParam(url, "connect_timeout", false);
  return {
    kind: "postgres", connectionString: url.toString(), schema, server: serverOf(url),
    ...(options === undefined ? {} : { options }), ...(maxConnections === undefined ? {} : { maxConnections }),
    ...(connectTimeout === undefined ? {} : { connectTimeoutMs: connectTimeout * 1000 }),
  };
}

/**
 * `--db` as messages may show it: a path as it is, a PostgreSQL URL with its password replaced by `***`.
 * @example displayDatabase("postgres://bob:s3cret@db/prod?schema=x") // "postgres://bob:***@db/prod?schema=x"
 */
export function displayDatabase(value: string): string {
  return isPostgresUrl(value) ? withoutPassword(value) : value;
}

/** A numeric parameter agentrt reads itself (removed from `url`); DB_URL_INVALID unless above 0 (and whole, with `whole`). */
function positiveParam(url: URL, name: string, whole: boolean): number | undefined {
  const text = url.searchParams.get(name);
  if (text === null) return undefined;
  url.searchParams.delete(name);
  const value = Number(text);
  if (!(Number.isFinite(value) && value > 0 && (!whole || Number.isInteger(value)))) {
    throw new StorageError("DB_URL_INVALID", `${serverOf(url)}: ${name} must be ${whole ? "a whole number of at least 1" : "a number of seconds above 0"} (got "${text}")`);
  }
  return value;
}

/** `user@host:port/database` of a URL, with libpq's defaults filled in. */
function serverOf(url: URL): string {
  const user = decodeURIComponent(url.username);
  const host = url.hostname || "localhost";
  const database = decodeURIComponent(url.pathname.replace(/^\//, "")) || user;
  return `${user}@${host}:${url.port || "5432"}/${database}`;
}

function withoutPassword(text: string): string {
  // Up to the last "@": a password may hold "/", ":" or an unencoded "@".
  // A `password=` parameter (which the driver also reads) is masked as well.
  return text.replace(/(\/\/[^:/@]*):.*@/, "$1:***@").replace(/([?&]password=)[^&#]*/gi, "$1***");
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    // No passwd entry for this uid (some containers): PostgreSQL's own default role.
    return "postgres";
  }
}
