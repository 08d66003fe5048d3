/**
 * The SQLite trace store: owns the `spans` table, hands out recorders, and reads
 * spans and statistics back. Its methods do their work synchronously before they
 * return (a flush inside a caller's transaction commits with it).
 * @module
 */
import type Database from "better-sqlite3";
import { assertSchemaCurrent, migrate, type SqliteDatabase } from "../db/index.js";
import { atomically } from "../db/in-transaction.js";
import type { OtelBridge } from "./otel.js";
import { startRootOtel } from "./root-otel.js";
import { resolvePricing, type PricingTable } from "./pricing.js";
import { TraceRecorder } from "./recorder.js";
import { INSERT_IF_ABSENT_SQL, emptyRow, isWait, rowToSpan, rowValues, type SpanRow } from "./rows.js";
import { TRACE_SCHEMA } from "./schema.js";
import { computeStats, type StatsOptions, type TraceStats } from "./stats.js";
import type { RecorderOptions, TraceStore, TraceStoreOptions } from "./trace-store.js";
import type { SpanKind, TraceSpan } from "./types.js";
import { sqliteSpanWriter, type SpanWriter } from "./writer.js";
import { parentsFirst } from "./parents-first.js";
import { randomHex } from "./random-hex.js";

type Statement = Database.Statement<unknown[]>;

const defaultClock = () => performance.timeOrigin + performance.now();

/** Spans of every run in one SQLite file. */
export class SqliteTraceStore implements TraceStore {
  readonly #db: SqliteDatabase;
  readonly #options: TraceStoreOptions;
  readonly #pricing: PricingTable;
  readonly #clock: () => number;
  #writer: SpanWriter | undefined;
  // One live recorder per run in this process, so every caller shares open spans and one OTel segment.
  readonly #live = new Map<string, TraceRecorder>();
  // Prepared once per store: runs open recorders and read spans on every execution.
  readonly #statements = new Map<string, Statement>();

  constructor(db: SqliteDatabase, options: TraceStoreOptions = {}) {
    this.#db = db;
    this.#options = options;
    this.#pricing = resolvePricing(options.pricing);
    this.#clock = options.clock ?? defaultClock;
  }

  /** The pricing table in effect (built-in prices with the user's on top). */
  get pricing(): PricingTable {
    return this.#pricing;
  }

  /** {@link TraceStore.recorder}; on SQLite, done when it returns. */
  async recorder(runId: string, options: RecorderOptions = {}): Promise<TraceRecorder> {
    const live = this.#live.get(runId);
    if (live !== undefined) {
      options.init?.(live);
      return live;
    }
    const writer = this.#getWriter();
    // Inside a caller's transaction (a claim's, which may roll back: see TraceRecorder.discard) only this run's rows
    // are written; otherwise other runs' rows go first, in their own commit, and the transaction below writes only
    // this run's (a failed commit loses no row the writer believes written but this recorder's, handed out to nobody).
    const inCallers = this.#db.inTransaction;
    if (!inCallers) void writer.flush();
    const init = options.init;
    if (init === undefined) return this.#attach(runId, options, writer);
    const scope = inCallers ? writer.only(runId) : undefined;
    try {
      const recorder = atomically(this.#db, () => {
        const attached = this.#attach(runId, options, writer, false);
        init(attached);
        void writer.flush();
        return attached;
      });
      this.#live.set(runId, recorder);
      return recorder;
    } finally {
      if (inCallers) writer.only(scope);
    }
  }

  /** Attaches the root (creating it when absent) and builds the run's recorder; `live`: shared from now on. */
  #attach(runId: string, options: RecorderOptions, writer: SpanWriter, live = true): TraceRecorder {
    const { row, resumed } = this.#attachRoot(runId, options);
    const loadStmt = this.#stmt("SELECT * FROM spans WHERE span_id = ?");
    const openStmt = this.#stmt("SELECT * FROM spans WHERE run_id = ? AND status = 'running' ORDER BY start_ms, rowid");
    const waitsStmt = this.#stmt("SELECT * FROM spans WHERE run_id = ? AND status = 'running' AND kind IN ('approval_wait', 'input_wait') ORDER BY start_ms, rowid");
    const countStmt = this.#stmt("SELECT COUNT(*) AS n FROM spans WHERE run_id = ? AND kind = 'state_change'");
    const recorder: TraceRecorder = new TraceRecorder({
      root: row, resumed, writer, pricing: this.#pricing, clock: this.#clock, maxArgsChars: this.#options.maxArgsChars ?? 2000,
      startOtel: (continuation) => this.#startOtel(row, continuation),
      release: () => {
        if (this.#live.get(runId) === recorder) this.#live.delete(runId);
      },
      load: (spanId) => loadStmt.get(spanId) as SpanRow | undefined,
      // Both lookups add the rows marked but not yet written (a recorder's batch holds its writes until it ends).
      openSpans: (id) => withPending(openStmt.all(id) as SpanRow[], writer.pendingOf(id)).map(rowToSpan),
      openWaits: (id) => withPending(waitsStmt.all(id) as SpanRow[], writer.pendingOf(id)).filter(isWait),
      countStateChanges: (id) => (countStmt.get(id) as { n: number }).n + unwrittenStateChanges(writer.pendingOf(id)),
    });
    if (live) this.#live.set(runId, recorder);
    return recorder;
  }

  /** {@link TraceStore.spans}. */
  async spans(runId: string): Promise<TraceSpan[]> {
    void this.#writer?.flush();
    if (!this.#hasTable()) return [];
    const rows = this.#stmt("SELECT * FROM spans WHERE run_id = ? ORDER BY start_ms, rowid").all(runId);
    return parentsFirst(rows.map(rowToSpan));
  }

  /** {@link TraceStore.countSpans}. */
  async countSpans(runId: string, kind: SpanKind): Promise<number> {
    void this.#writer?.flush();
    if (!this.#hasTable()) return 0;
    return (this.#stmt("SELECT COUNT(*) AS n FROM spans WHERE run_id = ? AND kind = ?").get(runId, kind) as { n: number }).n;
  }

  /** {@link TraceStore.hasRun}. */
  async hasRun(runId: string): Promise<boolean> {
    void this.#writer?.flush();
    if (!this.#hasTable()) return false;
    return this.#stmt("SELECT 1 FROM spans WHERE run_id = ? LIMIT 1").get(runId) !== undefined;
  }

  /** {@link TraceStore.stats}. */
  async stats(options: StatsOptions = {}): Promise<TraceStats> {
    void this.#writer?.flush();
    return computeStats(this.#db, this.#hasTable(), options);
  }

  /** {@link TraceStore.flush}: written when it returns. */
  flush(): Promise<void> {
    return this.#writer?.flush() ?? Promise.resolve();
  }

  #startOtel(root: SpanRow, continuation: boolean): OtelBridge | undefined {
    return startRootOtel(root, continuation, this.#options, this.#clock, () => this.#getWriter().mark(root, true));
  }

  #getWriter(): SpanWriter {
    this.#writer ??= sqliteSpanWriter(this.#db, this.#options);
    return this.#writer;
  }

  #hasTable(): boolean {
    return this.#stmt("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'spans'").get() !== undefined;
  }

  #stmt(sql: string): Statement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare<unknown[]>(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #attachRoot(runId: string, options: RecorderOptions): { row: SpanRow; resumed: boolean } {
    const select = this.#stmt("SELECT * FROM spans WHERE run_id = ? AND kind = 'invoke_agent' AND parent_id IS NULL");
    const existing = select.get(runId) as SpanRow | undefined;
    if (existing !== undefined) return { row: existing, resumed: true };
    const spanId = randomHex(8);
    const row = emptyRow({ span_id: spanId, run_id: runId, kind: "invoke_agent", name: `invoke_agent ${runId}`, start_ms: options.startTime ?? this.#clock() });
    row.graph = options.graph ?? null;
    row.agent = options.agent ?? options.graph ?? "agent";
    if (options.extra !== undefined) row.extra_json = JSON.stringify(options.extra);
    // OR IGNORE: when two processes race, the unique root index keeps the first (no change: read the winner).
    if (this.#stmt(INSERT_IF_ABSENT_SQL).run(rowValues(row)).changes === 1) return { row, resumed: false };
    const winner = select.get(runId) as SpanRow;
    return { row: winner, resumed: winner.span_id !== spanId };
  }
}

/** Running spans as stored, with the pending rows laid over them (a pending row is newer), oldest first. */
function withPending(stored: SpanRow[], pending: readonly SpanRow[]): SpanRow[] {
  if (pending.length === 0) return stored;
  const newer = new Map(pending.map((row) => [row.span_id, row]));
  const rows = stored.map((row) => newer.get(row.span_id) ?? row);
  const seen = new Set(stored.map((row) => row.span_id));
  for (const row of pending) if (!seen.has(row.span_id)) rows.push(row);
  // Stable: rows starting together stay in write order, as the stored ORDER BY start_ms, rowid has them.
  return rows.filter((row) => row.status === "running").sort((a, b) => a.start_ms - b.start_ms);
}

/**
 * State changes marked but not written. A state change is an instant, marked once when recorded (and again only
 * after a failed write), so a pending one is never stored yet.
 */
function unwrittenStateChanges(pending: readonly SpanRow[]): number {
  let n = 0;
  for (const row of pending) if (row.kind === "state_change") n++;
  return n;
}

/**
 * Opens the trace store on a run database, creating or migrating the
 * `spans` table (a read-only connection is only checked, never migrated).
 * @example
 * const store = openTraceStore(openDatabase("agentrt.db"));
 * const rec = await store.recorder("run_01", { graph: "ops_rollback" });
 */
export function openTraceStore(db: SqliteDatabase, options: TraceStoreOptions = {}): SqliteTraceStore {
  if (db.readonly) assertSchemaCurrent(db, TRACE_SCHEMA);
  else migrate(db, TRACE_SCHEMA);
  return new SqliteTraceStore(db, options);
}
