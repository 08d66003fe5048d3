/**
 * Runs as `agentrt runs` and `agentrt status` show them, read without writing anything: through a read-only
 * connection that creates nothing beside the file (openDatabase's `snapshot`), without migrating it, and
 * without langgraph.json. Recording a wait that outlived its TTL is a write: {@link RunReader.hasOverdueWait}
 * tells the caller when the full {@link Runtime} (which records it) is needed to show the same as it would.
 * @module
 */
import { openDatabase, type SqliteDatabase } from "../db/index.js";
// The modules themselves, not the runs' and ledger's indexes: `status` and `runs` load no worker, lease or PostgreSQL store.
import { isWaiting, type RunStatus } from "../runs/lifecycle.js";
import type { RunRecord } from "../runs/run-record.js";
import { SqliteRunStore } from "../runs/sqlite-run-store.js";
import { ledgerFor } from "../ledger/executor.js";
import type { ToolLedger } from "../ledger/index.js";
import { listSideEffects } from "./side-effects.js";
import { toRunView, type RunView } from "./run-view.js";
import type { Runtime } from "./runtime.js";

/** What `runs` and `status` read; a {@link Runtime} and a {@link RunReader} both provide it. */
export type RunSource = Pick<Runtime, "get" | "list">;

/**
 * The view of a run as `status` prints it: one that ended without success (FAILED, EXPIRED, CANCELED) lists
 * the side effects it performed, which stay done.
 */
export async function runViewOf(ledger: ToolLedger, run: RunRecord): Promise<RunView> {
  const view = toRunView(run);
  if (run.status !== "FAILED" && run.status !== "EXPIRED" && run.status !== "CANCELED") return view;
  let effects: Awaited<ReturnType<typeof listSideEffects>>;
  try {
    effects = await listSideEffects(ledger, run.runId);
  } catch {
    // A ledger that cannot be read (the run may have failed for that very reason) must not hide the outcome.
    return view;
  }
  return effects.length === 0 ? view : { ...view, side_effects: effects };
}

/** Read-only access to the runs of one database file. */
export class RunReader implements RunSource {
  private constructor(
    private readonly db: SqliteDatabase,
    private readonly runs: SqliteRunStore,
  ) {}

  /** Opens an existing file read-only (DB_OPEN_FAILED when missing, a one-line StorageError when unreadable). */
  static open(path: string): RunReader {
    const db = openDatabase(path, { readonly: true, snapshot: true });
    try {
      return new RunReader(db, SqliteRunStore.open(db));
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** True when the run (or, without an id, any run) waits past its TTL: showing it EXPIRED means recording that. */
  async hasOverdueWait(runId?: string): Promise<boolean> {
    const now = this.runs.clock();
    const overdue = (run: RunRecord | undefined) => run !== undefined && isWaiting(run.status) && run.waitExpiresAt !== null && run.waitExpiresAt <= now;
    if (runId !== undefined) return overdue(await this.runs.find(runId));
    // Read as records, not with the store's wait query: a file older than wait TTLs has no such column.
    return (await this.runs.list({ status: ["WAITING_APPROVAL", "WAITING_INPUT"] })).some(overdue);
  }

  /** The run as stored; UNKNOWN_RUN for an unknown id. */
  async get(runId: string): Promise<RunView> {
    return runViewOf(ledgerFor(this.db), await this.runs.get(runId));
  }

  /** Runs, newest first, optionally of one status. */
  async list(filter: { status?: RunStatus; limit?: number } = {}): Promise<RunView[]> {
    return (await this.runs.list({ ...filter, order: "newest" })).map(toRunView);
  }

  /** Closes the connection. */
  close(): void {
    if (this.db.open) this.db.close();
  }
}
