/**
 * The SQLite trace store: owns the `spans` table, hands out recorders, and reads
 * spans and statistics back.
 * @module
 */
import type Database from "better-sqlite3";
import { assertSchemaCurrent, migrate, type SqliteDatabase } from "../db/index.js";
import { randomBytes } from "node:crypto";
import { OTEL_SPAN_ID, OTEL_TRACE_ID, OtelBridge } from "./otel.js";
import { resolvePricing, type PricingTable } from "./pricing.js";
import { TraceRecorder } from "./recorder.js";
import { INSERT_IF_ABSENT_SQL, emptyRow, rowToSpan, rowValues, type SpanRow } from "./rows.js";
import { TRACE_SCHEMA } from "./schema.js";
import { computeStats, type StatsOptions, type TraceStats } from "./stats.js";
import type { AttributeValue, SpanKind, TraceSpan } from "./types.js";
import { SpanWriter, type SpanWriterOptions } from "./writer.js";

/** How a trace store records. */
export interface TraceStoreOptions extends SpanWriterOptions {
  /** Prices that override or extend the built-in table. @default {} */
  pricing?: PricingTable;
  /** Time source in epoch ms. @default performance.timeOrigin + performance.now() */
  clock?: () => number;
  /** Longest stored argument JSON. @default 2000 */
  maxArgsChars?: number;
  /** Mirror spans to OpenTelemetry when a tracer provider is registered. @default true */
  otel?: boolean;
}

/** What a recorder needs to know about the run. */
export interface RecorderOptions {
  /** Graph id, e.g. "ops_rollback"; used by `stats --graph`. */
  graph?: string;
  /** Agent name for `gen_ai.agent.name`. @default graph, else "agent" */
  agent?: string;
  /** Start of the run in epoch ms (ignored when re-attaching). @default now */
  startTime?: number;
  /** Extra attributes on the root span. */
  extra?: Record<string, AttributeValue>;
}

type Statement = Database.Statement<unknown[]>;

const defaultClock = () => performance.timeOrigin + performance.now();

/** Spans of every run in one database. */
export class SqliteTraceStore {
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

  /**
   * A recorder for `runId`. The first call creates the run's root span; later
   * calls, in this or another process, re-attach to it, so a resumed run
   * continues one trace.
   */
  recorder(runId: string, options: RecorderOptions = {}): TraceRecorder {
    const live = this.#live.get(runId);
    if (live !== undefined) return live;
    const writer = this.#getWriter();
    writer.flush();
    const { row, resumed } = this.#attachRoot(runId, options);
    const loadStmt = this.#stmt("SELECT * FROM spans WHERE span_id = ?");
    const openStmt = this.#stmt("SELECT * FROM spans WHERE run_id = ? AND status = 'running' ORDER BY start_ms, rowid");
    const recorder: TraceRecorder = new TraceRecorder({
      root: row, resumed, writer, pricing: this.#pricing, clock: this.#clock, maxArgsChars: this.#options.maxArgsChars ?? 2000,
      startOtel: (continuation) => this.#startOtel(row, continuation),
      release: () => {
        if (this.#live.get(runId) === recorder) this.#live.delete(runId);
      },
      load: (spanId) => loadStmt.get(spanId) as SpanRow | undefined,
      openSpans: (id) => openStmt.all(id).map(rowToSpan),
    });
    this.#live.set(runId, recorder);
    return recorder;
  }

  /** Every span of a run, parents before children, in start order. Empty when the run has no trace. */
  spans(runId: string): TraceSpan[] {
    this.#writer?.flush();
    if (!this.#hasTable()) return [];
    const rows = this.#stmt("SELECT * FROM spans WHERE run_id = ? ORDER BY start_ms, rowid").all(runId);
    return rows.map(rowToSpan);
  }

  /** How many spans of one kind a run has stored (pending writes included), without reading them. */
  countSpans(runId: string, kind: SpanKind): number {
    this.#writer?.flush();
    if (!this.#hasTable()) return 0;
    return (this.#stmt("SELECT COUNT(*) AS n FROM spans WHERE run_id = ? AND kind = ?").get(runId, kind) as { n: number }).n;
  }

  /** Whether any span of this run is stored. */
  hasRun(runId: string): boolean {
    this.#writer?.flush();
    if (!this.#hasTable()) return false;
    return this.#stmt("SELECT 1 FROM spans WHERE run_id = ? LIMIT 1").get(runId) !== undefined;
  }

  /** Latency, failure, retry, token and cost statistics over stored spans. */
  stats(options: StatsOptions = {}): TraceStats {
    this.#writer?.flush();
    return computeStats(this.#db, this.#hasTable(), options);
  }

  /** Writes everything pending. */
  flush(): void {
    this.#writer?.flush();
  }

  #startOtel(root: SpanRow, continuation: boolean): OtelBridge | undefined {
    if (this.#options.otel === false) return undefined;
    const extra = root.extra_json === null ? {} : (JSON.parse(root.extra_json) as Record<string, unknown>);
    const otel = OtelBridge.start(root, extra, continuation, this.#clock());
    if (otel !== undefined && extra[OTEL_TRACE_ID] === undefined) {
      // The first segment's ids let later processes join the same OpenTelemetry trace.
      const ids = otel.rootIds();
      root.extra_json = JSON.stringify({ ...extra, [OTEL_TRACE_ID]: ids.traceId, [OTEL_SPAN_ID]: ids.spanId });
      this.#getWriter().mark(root, true);
    }
    return otel;
  }

  #getWriter(): SpanWriter {
    this.#writer ??= new SpanWriter(this.#db, this.#options);
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
    const spanId = randomBytes(8).toString("hex");
    const row = emptyRow({ span_id: spanId, run_id: runId, kind: "invoke_agent", name: `invoke_agent ${runId}`, start_ms: options.startTime ?? this.#clock() });
    row.graph = options.graph ?? null;
    row.agent = options.agent ?? options.graph ?? "agent";
    if (options.extra !== undefined) row.extra_json = JSON.stringify(options.extra);
    // OR IGNORE: when two processes race, the unique root index keeps the first.
    this.#stmt(INSERT_IF_ABSENT_SQL).run(rowValues(row));
    const winner = select.get(runId) as SpanRow;
    return { row: winner, resumed: winner.span_id !== spanId };
  }
}

/**
 * Opens the trace store on a run database, creating or migrating the
 * `spans` table (a read-only connection is only checked, never migrated).
 * @example
 * const store = openTraceStore(openDatabase("agentrt.db"));
 * const rec = store.recorder("run_01", { graph: "ops_rollback" });
 */
export function openTraceStore(db: SqliteDatabase, options: TraceStoreOptions = {}): SqliteTraceStore {
  if (db.readonly) assertSchemaCurrent(db, TRACE_SCHEMA);
  else migrate(db, TRACE_SCHEMA);
  return new SqliteTraceStore(db, options);
}
