/**
 * The JSON documents of a `runs` row that agentrt itself shapes — `budget_json`, `config_json`,
 * `pending_json`, `resume_json` — each written with its format version under `"$v"` and read back by the
 * schema of the version it carries. Documents written before versions existed carry none: they are version
 * 0 and keep their own frozen schema, so a file from any release reads the same forever. A change of shape
 * is a new version here (and a new fixture in test/fixtures/historical), never an edit of an old schema.
 * `input_json`, `result_json` and `metadata_json` are the caller's own values, stored as given.
 * @module
 */
import { z } from "zod";
import { StorageError } from "../errors.js";
import type { RunGraphConfig } from "./graph-config.js";
import type { RunBudget } from "./run-record.js";

/** The key every versioned document carries its format version under. */
const DOCUMENT_VERSION_KEY = "$v";

/** One stored document kind: the schema of each version (index = version) and the one written today. */
interface DocumentFormat<T> {
  column: string;
  /** versions[v] parses a document of version v and returns today's in-memory form. */
  versions: readonly z.ZodType<T>[];
  encode(value: T): Record<string, unknown>;
  /**
   * A hand-written read of a document of the versions written today (the hot path: every read of a run decodes its
   * documents), or {@link UNSURE}: then the version's zod schema decides, so it alone defines what is accepted.
   */
  fast(doc: Record<string, unknown>, version: number): T | typeof UNSURE;
}

/** A fast read that cannot vouch for a document: its version's zod schema reads it instead. */
const UNSURE: unique symbol = Symbol("unsure");

const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;
const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Today's budget document (`$v` 1) with nothing but valid limits, without its version; else UNSURE. */
function fastBudget(doc: Record<string, unknown>, version: number): RunBudget | typeof UNSURE {
  if (version !== 1) return UNSURE;
  const budget: RunBudget = {};
  for (const key in doc) {
    const value = doc[key];
    if (key === "$v") continue;
    if (key === "maxCostUsd") {
      if (!(Number.isFinite(value) && (value as number) >= 0)) return UNSURE;
    } else if (!(key === "maxSteps" || key === "maxModelCalls" || key === "maxTokens" || key === "deadlineMs") || !isCount(value)) {
      return UNSURE;
    }
    budget[key] = value as number;
  }
  return budget;
}

/** Today's config document (`$v` 1, 2 or 3) without its version; else UNSURE. */
function fastConfig(doc: Record<string, unknown>, version: number): RunGraphConfig | typeof UNSURE {
  if (version !== 1 && version !== 2 && version !== 3) return UNSURE;
  const config: RunGraphConfig = {};
  for (const key in doc) {
    const value = doc[key];
    if (key === "$v") continue;
    if (key === "configurable" && isPlainObject(value)) config.configurable = value;
    else if (key === "recursionLimit" && Number.isSafeInteger(value) && (value as number) > 0) config.recursionLimit = value as number;
    else if (key === "stream" && version >= 2 && isStream(value)) config.stream = { modes: [...value.modes] };
    else if (key === "fromCheckpoint" && version === 3 && typeof value === "string") config.fromCheckpoint = value;
    else return UNSURE;
  }
  return config;
}

function isStream(value: unknown): value is { modes: string[] } {
  if (!isPlainObject(value) || Object.keys(value).length !== 1) return false;
  const modes = value.modes;
  return Array.isArray(modes) && modes.every((mode) => typeof mode === "string");
}

const budgetFields = {
  maxSteps: z.number().int().nonnegative().optional(),
  maxModelCalls: z.number().int().nonnegative().optional(),
  maxTokens: z.number().int().nonnegative().optional(),
  maxCostUsd: z.number().nonnegative().optional(),
  deadlineMs: z.number().int().nonnegative().optional(),
};
const withoutVersion = <T extends Record<string, unknown>>(doc: T): Omit<T, "$v"> => {
  const { $v: _version, ...rest } = doc;
  return rest;
};

const BUDGET: DocumentFormat<RunBudget> = {
  column: "budget_json",
  versions: [
    // v0 (runs schema v1–v3, before document versions): the limits as a bare object.
    z.strictObject(budgetFields),
    z.strictObject({ $v: z.literal(1), ...budgetFields }).transform(withoutVersion),
  ],
  encode: (budget) => ({ $v: 1, ...budget }),
  fast: fastBudget,
};

const configFields = {
  configurable: z.record(z.string(), z.unknown()).optional(),
  recursionLimit: z.number().int().positive().optional(),
};

const streamField = z.strictObject({ modes: z.array(z.string()) }).optional();

const CONFIG: DocumentFormat<RunGraphConfig> = {
  column: "config_json",
  versions: [
    // v0 (runs schema v3, before document versions).
    z.strictObject(configFields),
    z.strictObject({ $v: z.literal(1), ...configFields }).transform(withoutVersion),
    // v2: a run streamed through the shared chunk log says so (its modes); written only for such runs, so an older
    // agentrt refuses just those (DB_SCHEMA_TOO_NEW) rather than executing them unpublished.
    z.strictObject({ $v: z.literal(2), ...configFields, stream: streamField }).transform(withoutVersion),
    // v3: a run from an earlier checkpoint names it; written only for such runs, so an older agentrt refuses just
    // those (DB_SCHEMA_TOO_NEW) rather than running their input on the thread's newest checkpoint.
    z.strictObject({ $v: z.literal(3), ...configFields, stream: streamField, fromCheckpoint: z.string().min(1).optional() }).transform(withoutVersion),
  ],
  encode: (config) => ({ $v: config.fromCheckpoint !== undefined ? 3 : config.stream === undefined ? 1 : 2, ...config }),
  fast: fastConfig,
};

/**
 * What a waiting run waits for and what it resumes with are the runtime's business (approval views, input
 * requests, decisions); the store keeps them opaque, wrapped so the wrapper can carry the version.
 */
function opaque(column: string): DocumentFormat<unknown> {
  return {
    column,
    versions: [
      // v0: the value itself (an array of pending actions or decisions, an input resume object).
      z.unknown(),
      z.strictObject({ $v: z.literal(1), value: z.unknown() }).transform((doc) => doc.value),
    ],
    encode: (value) => ({ $v: 1, value }),
    // `{"$v":1,"value":…}` and nothing else: the value, whatever it is (the runtime reads it).
    fast: (doc, version) => (version === 1 && "value" in doc && Object.keys(doc).length === 2 ? doc.value : UNSURE),
  };
}

const PENDING = opaque("pending_json");
const RESUME = opaque("resume_json");

function versionOf(doc: unknown): unknown {
  return typeof doc === "object" && doc !== null && !Array.isArray(doc) && DOCUMENT_VERSION_KEY in doc
    ? (doc as Record<string, unknown>)[DOCUMENT_VERSION_KEY]
    : 0;
}

function decode<T>(format: DocumentFormat<T>, runId: string, text: string): T {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new StorageError("DB_CORRUPT", `run ${runId}: ${format.column} is not JSON`, { cause: error, details: { runId, column: format.column } });
  }
  const version = versionOf(doc);
  const schema = typeof version === "number" && Number.isInteger(version) && version >= 0 ? format.versions[version] : undefined;
  if (schema === undefined) {
    const known = format.versions.length - 1;
    if (typeof version === "number" && version > known) {
      throw new StorageError("DB_SCHEMA_TOO_NEW", `run ${runId}: ${format.column} is document version ${version}, newer than this agentrt knows (${known})`, {
        details: { runId, column: format.column, version, known },
      });
    }
    throw new StorageError("DB_CORRUPT", `run ${runId}: ${format.column} has an unreadable document version ${JSON.stringify(version)}`, { details: { runId, column: format.column } });
  }
  if (isPlainObject(doc)) {
    const read = format.fast(doc, version as number);
    if (read !== UNSURE) return read;
  }
  const parsed = schema.safeParse(doc);
  if (!parsed.success) {
    throw new StorageError("DB_CORRUPT", `run ${runId}: unreadable ${format.column} (document version ${String(version)}): ${z.prettifyError(parsed.error)}`, {
      cause: parsed.error,
      details: { runId, column: format.column, version },
    });
  }
  return parsed.data;
}

/** `budget_json` as written today. */
export function encodeBudget(budget: RunBudget): string {
  return JSON.stringify(BUDGET.encode(budget));
}

/** `config_json` as written today (NULL when the run has none). */
export function encodeConfig(config: RunGraphConfig | undefined): string | null {
  return config === undefined ? null : JSON.stringify(CONFIG.encode(config));
}

/** `pending_json` / `resume_json` as written today; `undefined` is stored as NULL, any other value wrapped. */
export function encodeOpaque(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(PENDING.encode(value));
}

/** Today's form of the stored documents of one row, each read by the schema of its own version. */
export function decodeDocuments(
  runId: string,
  row: { budget_json: string; config_json?: string | null; pending_json: string | null; resume_json: string | null },
): { budget: RunBudget; config: RunGraphConfig | null; pending: unknown; resume: unknown } {
  return {
    budget: decode(BUDGET, runId, row.budget_json),
    config: row.config_json == null ? null : decode(CONFIG, runId, row.config_json),
    pending: row.pending_json === null ? null : decode(PENDING, runId, row.pending_json),
    resume: row.resume_json === null ? null : decode(RESUME, runId, row.resume_json),
  };
}
