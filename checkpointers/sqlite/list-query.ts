import type { Statement } from "better-sqlite3";
import type { SqliteDatabase } from "../../src/db/index.js";
import { UserInputError } from "../../src/errors.js";
import type { CheckpointRow } from "./statements.js";

/** What `list()` selects on, already pulled out of the config and options. */
export interface ListSelection {
  threadId?: string;
  checkpointNs?: string;
  checkpointId?: string;
  before?: string;
  filter?: Record<string, unknown>;
}

/** Where the previous page stopped (rows are ordered by id, thread, namespace, all descending). */
export interface ListCursor {
  checkpointId: string;
  threadId: string;
  checkpointNs: string;
}

type FilterKind = "text" | "number" | "true" | "false" | "null" | "missing" | "json";

const ORDER = "ORDER BY checkpoint_id DESC, thread_id DESC, checkpoint_ns DESC";

/**
 * Builds (and caches by shape) the statement for one page of `list()`: every
 * selection and metadata filter is evaluated by SQLite, never in JS.
 */
export class ListQueries {
  private readonly cache = new Map<string, Statement<unknown[], CheckpointRow>>();

  constructor(private readonly db: SqliteDatabase) {}

  /** Runs one page and returns its rows. */
  page(selection: ListSelection, cursor: ListCursor | undefined, limit: number): CheckpointRow[] {
    const where: string[] = [];
    const params: unknown[] = [];
    const shape: string[] = [];
    const add = (clause: string, key: string, ...values: unknown[]) => {
      where.push(clause);
      shape.push(key);
      params.push(...values);
    };
    if (selection.threadId !== undefined) add("thread_id = ?", "t", selection.threadId);
    if (selection.checkpointNs !== undefined) add("checkpoint_ns = ?", "n", selection.checkpointNs);
    if (selection.checkpointId !== undefined) add("checkpoint_id = ?", "i", selection.checkpointId);
    if (selection.before !== undefined) add("checkpoint_id < ?", "b", selection.before);
    for (const [key, value] of Object.entries(selection.filter ?? {})) {
      const [clause, kind, values] = filterClause(key, value);
      add(clause, `f:${kind}`, ...values);
    }
    if (cursor !== undefined) {
      if (selection.threadId !== undefined && selection.checkpointNs !== undefined) {
        add("checkpoint_id < ?", "c1", cursor.checkpointId);
      } else {
        add("(checkpoint_id, thread_id, checkpoint_ns) < (?, ?, ?)", "c3", cursor.checkpointId, cursor.threadId, cursor.checkpointNs);
      }
    }
    params.push(limit);
    const key = shape.join(",");
    let statement = this.cache.get(key);
    if (statement === undefined) {
      const sql = `SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata_type, metadata, refs, vals
        FROM checkpoints ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ${ORDER} LIMIT ?`;
      statement = this.db.prepare<unknown[], CheckpointRow>(sql);
      this.cache.set(key, statement);
    }
    // Drained within this synchronous call: a cursor held open across `yield` would make the
    // connection "busy" and reject any put() the caller makes while it iterates.
    return [...statement.iterate(...params)];
  }
}

/** One metadata filter entry as SQL: strict equality, like MemorySaver's `===` on each key. */
function filterClause(key: string, value: unknown): [string, FilterKind, unknown[]] {
  if (key.includes('"')) {
    throw new UserInputError("BAD_INPUT", `list() filter key ${JSON.stringify(key)} contains a double quote, which is not supported`);
  }
  const path = `$."${key}"`;
  const type = "json_type(metadata, ?)";
  switch (typeof value) {
    case "string":
      return [`${type} = 'text' AND json_extract(metadata, ?) = ?`, "text", [path, path, value]];
    case "number":
    case "bigint":
      return [`${type} IN ('integer', 'real') AND json_extract(metadata, ?) = ?`, "number", [path, path, value]];
    case "boolean":
      return [`${type} = '${value ? "true" : "false"}'`, value ? "true" : "false", [path]];
    case "undefined":
      return [`${type} IS NULL`, "missing", [path]];
    default:
      if (value === null) return [`${type} = 'null'`, "null", [path]];
      return [`${type} IN ('object', 'array') AND json_extract(metadata, ?) = json(?)`, "json", [path, path, JSON.stringify(value)]];
  }
}
