/**
 * The `tool_ledger` table (module "ledger") and the parsing of its rows.
 * @module
 */
import { z } from "zod";
import type { ModuleSchema } from "../db/index.js";
import { StorageError } from "../errors.js";

/** pending: intent written, no outcome yet; done: result recorded; failed: definitely not applied. */
export type LedgerStatus = "pending" | "done" | "failed";

/** One side-effecting tool call as the ledger remembers it. */
export interface LedgerEntry {
  /** `${runId}:${toolCallId}:${actionVersion}`, the idempotency key given to the tool. */
  key: string;
  runId: string;
  toolCallId: string;
  actionVersion: number;
  tool: string;
  argsHash: string;
  idempotent: boolean;
  status: LedgerStatus;
  /** Times the call was issued (1 + reissues + retries after definite failures). */
  attempts: number;
  result: unknown;
  externalOperationId: string | null;
  /** The last error reported, serialised as `{ name, message, code? }`. */
  error: unknown;
  createdAt: number;
  updatedAt: number;
  completedAt: number | null;
}

const V1 = `
CREATE TABLE tool_ledger (
  idempotency_key TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  tool_call_id TEXT NOT NULL,
  action_version INTEGER NOT NULL,
  tool TEXT NOT NULL,
  args_hash TEXT NOT NULL,
  idempotent INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
  attempts INTEGER NOT NULL,
  result_json TEXT,
  external_operation_id TEXT,
  error_json TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  completed_at INTEGER,
  UNIQUE (run_id, tool_call_id, action_version)
);
CREATE INDEX tool_ledger_by_run ON tool_ledger (run_id);
`;

/** The ledger module's schema; migration i brings version i to i + 1. */
export const LEDGER_SCHEMA: ModuleSchema = {
  module: "ledger",
  tables: ["tool_ledger"],
  migrations: [V1],
};

const ledgerRow = z.object({
  idempotency_key: z.string(),
  run_id: z.string(),
  tool_call_id: z.string(),
  action_version: z.number().int(),
  tool: z.string(),
  args_hash: z.string(),
  idempotent: z.union([z.literal(0), z.literal(1)]),
  status: z.enum(["pending", "done", "failed"]),
  attempts: z.number().int(),
  result_json: z.string().nullable(),
  external_operation_id: z.string().nullable(),
  error_json: z.string().nullable(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
  completed_at: z.number().int().nullable(),
});

/** Converts a `tool_ledger` row, refusing malformed ones. */
export function rowToLedgerEntry(row: unknown): LedgerEntry {
  const parsed = ledgerRow.safeParse(row);
  if (!parsed.success) {
    throw new StorageError("DB_CORRUPT", `unreadable tool_ledger row: ${parsed.error.message}`, { cause: parsed.error });
  }
  const r = parsed.data;
  return {
    key: r.idempotency_key,
    runId: r.run_id,
    toolCallId: r.tool_call_id,
    actionVersion: r.action_version,
    tool: r.tool,
    argsHash: r.args_hash,
    idempotent: r.idempotent === 1,
    status: r.status,
    attempts: r.attempts,
    result: r.result_json === null ? null : JSON.parse(r.result_json),
    externalOperationId: r.external_operation_id,
    error: r.error_json === null ? null : decodeLedgerError(r.idempotency_key, r.error_json),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    completedAt: r.completed_at,
  };
}

const errorFields = { name: z.string(), message: z.string(), code: z.string().optional() };

/**
 * `error_json` by format version (index = version, under `"$v"`). v0: written before versions existed,
 * the bare picture. A change of shape is a new entry here and a new historical fixture, never an edit.
 */
const ERROR_VERSIONS = [
  z.strictObject(errorFields),
  z.strictObject({ $v: z.literal(1), ...errorFields }).transform(({ $v: _version, ...error }) => error),
] as const;

/** The `error_json` column as written today: the error's picture with its format version. */
export function encodeLedgerError(error: unknown): string {
  return JSON.stringify({ $v: 1, ...serialiseError(error) });
}

function decodeLedgerError(key: string, text: string): Record<string, unknown> {
  const doc = JSON.parse(text) as unknown;
  const version = typeof doc === "object" && doc !== null && "$v" in doc ? (doc).$v : 0;
  const schema = typeof version === "number" ? ERROR_VERSIONS[version] : undefined;
  if (schema === undefined) {
    const known = ERROR_VERSIONS.length - 1;
    const tooNew = typeof version === "number" && version > known;
    throw new StorageError(tooNew ? "DB_SCHEMA_TOO_NEW" : "DB_CORRUPT", `tool_ledger ${key}: error_json is document version ${JSON.stringify(version)} (this agentrt knows 0..${known})`, {
      details: { key, column: "error_json", version, known },
    });
  }
  const parsed = schema.safeParse(doc);
  if (!parsed.success) {
    throw new StorageError("DB_CORRUPT", `tool_ledger ${key}: unreadable error_json (version ${String(version)}): ${z.prettifyError(parsed.error)}`, { cause: parsed.error });
  }
  return parsed.data;
}

/** A JSON-safe picture of an error for the `error_json` column. */
export function serialiseError(error: unknown): Record<string, unknown> {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { name: error.name, message: error.message, ...(typeof code === "string" ? { code } : {}) };
  }
  return { name: "Error", message: typeof error === "string" ? error : JSON.stringify(error) ?? String(error) };
}
