/**
 * The append-only log of run status changes. Rows are only ever inserted;
 * triggers in the schema refuse UPDATE and DELETE.
 * @module
 */
import type Database from "better-sqlite3";
import type { SqliteDatabase } from "../db/index.js";
import type { RunStatus } from "./lifecycle.js";
import { rowToEvent, type RunEvent } from "./run-record.js";

/** What is recorded for one status change. */
export interface NewRunEvent {
  runId: string;
  from: RunStatus | null;
  to: RunStatus;
  at: number;
  actor?: string | null;
  fencingToken?: number | null;
  errorCode?: string | null;
  reason?: string | null;
}

const inserts = new WeakMap<SqliteDatabase, Database.Statement<unknown[]>>();
// Read on every execution (the trace copies transitions from it): prepared once per connection.
const byRun = new WeakMap<SqliteDatabase, Database.Statement<unknown[]>>();

function insertStatement(db: SqliteDatabase): Database.Statement<unknown[]> {
  let statement = inserts.get(db);
  if (statement === undefined) {
    statement = db.prepare<unknown[]>(
      `INSERT INTO run_events (run_id, from_status, to_status, at, actor, fencing_token, error_code, reason)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    inserts.set(db, statement);
  }
  return statement;
}

/** Appends one event; call inside the transaction that changed the status. Returns the event as stored. */
export function appendRunEvent(db: SqliteDatabase, event: NewRunEvent): RunEvent {
  const stored: RunEvent = {
    eventId: 0, runId: event.runId, from: event.from, to: event.to, at: event.at, actor: event.actor ?? null,
    fencingToken: event.fencingToken ?? null, errorCode: event.errorCode ?? null, reason: event.reason ?? null,
  };
  const { lastInsertRowid } = insertStatement(db).run(
    stored.runId, stored.from, stored.to, stored.at, stored.actor, stored.fencingToken, stored.errorCode, stored.reason,
  );
  stored.eventId = Number(lastInsertRowid);
  return stored;
}

/** Every event of a run, oldest first. */
export function listRunEvents(db: SqliteDatabase, runId: string): RunEvent[] {
  let statement = byRun.get(db);
  if (statement === undefined) {
    statement = db.prepare<unknown[]>("SELECT * FROM run_events WHERE run_id = ? ORDER BY event_id");
    byRun.set(db, statement);
  }
  return statement.all(runId).map(rowToEvent);
}

/** Events after `afterEventId` (all runs, or one), oldest first. */
export function listEventsAfter(db: SqliteDatabase, afterEventId: number, options: { runId?: string; limit?: number }): RunEvent[] {
  const limit = options.limit ?? 1000;
  const rows =
    options.runId === undefined
      ? db.prepare("SELECT * FROM run_events WHERE event_id > ? ORDER BY event_id LIMIT ?").all(afterEventId, limit)
      : db.prepare("SELECT * FROM run_events WHERE run_id = ? AND event_id > ? ORDER BY event_id LIMIT ?").all(options.runId, afterEventId, limit);
  return rows.map(rowToEvent);
}
