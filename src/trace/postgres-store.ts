/**
 * The PostgreSQL trace store: the `spans` table in a PostgreSQL schema. Recording stays synchronous and in memory;
 * a flush writes the whole batch in one statement, and obtaining a recorder reads what it needs of the run's
 * stored spans (root, running spans, state-change count) in one round trip.
 * @module
 */
import { assertPostgresSchemaCurrent, migrateOnce, type PostgresDatabase } from "../db/postgres/index.js";
import { SystemError } from "../errors.js";
import type { OtelBridge } from "./otel.js";
import { PG_ATTACH_SQL, PG_RUN_STATE_SQL, PG_UPSERT_BATCH_SQL, columnArrays, columnValues, numeric, toSpanRow } from "./postgres-sql.js";
import { RunSpans, type StoredRunState } from "./postgres-run-spans.js";
import { TRACE_PG_SCHEMA } from "./postgres-schema.js";
import { computePostgresStats } from "./postgres-stats.js";
import { resolvePricing, type PricingTable } from "./pricing.js";
import { TraceRecorder } from "./recorder.js";
import { startRootOtel } from "./root-otel.js";
import { emptyRow, isWait, rowToSpan, type SpanRow } from "./rows.js";
import { emptyStats, type StatsOptions, type TraceStats } from "./stats.js";
import type { RecorderOptions, TraceStore, TraceStoreOptions } from "./trace-store.js";
import type { SpanKind, TraceSpan } from "./types.js";
import { SpanWriter } from "./writer.js";
import { parentsFirst } from "./parents-first.js";
import { randomHex } from "./random-hex.js";

const defaultClock = () => performance.timeOrigin + performance.now();

interface Live {
  recorder: TraceRecorder;
  spans: RunSpans;
}

/** Spans of every run in one PostgreSQL schema. */
export class PostgresTraceStore implements TraceStore {
  readonly #db: PostgresDatabase;
  readonly #options: TraceStoreOptions;
  readonly #pricing: PricingTable;
  readonly #clock: () => number;
  readonly #writer: SpanWriter;
  // One live recorder per run in this process, so every caller shares open spans and one OTel segment.
  readonly #live = new Map<string, Live>();
  readonly #migrate: () => Promise<void>;
  // The flush due at the end of this turn of the event loop, shared by every caller in it.
  #soon: Promise<void> | undefined;

  /** A store on `db`; its table is created or migrated by {@link PostgresTraceStore.setup} (or the first operation). */
  constructor(db: PostgresDatabase, options: TraceStoreOptions = {}) {
    this.#db = db;
    this.#migrate = migrateOnce(db, TRACE_PG_SCHEMA);
    this.#options = options;
    this.#pricing = resolvePricing(options.pricing);
    this.#clock = options.clock ?? defaultClock;
    this.#writer = new SpanWriter((rows) => this.#writeBatch(rows), options);
  }

  /** Creates or migrates the `spans` table once (DB_SCHEMA_TOO_NEW for a newer schema); later calls cost nothing. */
  setup(): Promise<void> {
    return this.#migrate();
  }

  /** The pricing table in effect (built-in prices with the user's on top). */
  get pricing(): PricingTable {
    return this.#pricing;
  }

  /** {@link TraceStore.recorder}: one round trip (two when another process creates the root at the same moment). */
  async recorder(runId: string, options: RecorderOptions = {}): Promise<TraceRecorder> {
    await this.setup();
    await this.#writer.flush();
    const live = this.#live.get(runId);
    if (live !== undefined) {
      const before = live.spans.snapshot();
      live.spans.reload(await this.#runState(PG_RUN_STATE_SQL, [runId]), before);
      options.init?.(live.recorder);
      return live.recorder;
    }
    const { root, resumed, state } = await this.#attachRoot(runId, options);
    // Another call of this process attached meanwhile: share its recorder.
    const raced = this.#live.get(runId);
    if (raced !== undefined) {
      options.init?.(raced.recorder);
      return raced.recorder;
    }
    const spans = new RunSpans(state);
    const writer = this.#writer;
    const sink = {
      mark: (row: SpanRow, urgent?: boolean) => {
        if (row.run_id === runId) spans.note(row);
        writer.mark(row);
        // An urgent row (a wait, a state change, the run's end) goes out before the next I/O, with the rows marked in
        // the same turn of the event loop: one round trip for them all instead of one each.
        if (urgent === true) void this.#flushSoon();
      },
      // The recorder flushes after each end and lookup; on PostgreSQL its lookups read memory, so the flushes of one
      // turn go out together, and each caller still resolves once its rows are written.
      flush: () => this.#flushSoon(),
      pendingOf: (id: string) => writer.pendingOf(id),
      forget: (row: SpanRow) => writer.forget(row),
      only: (id: string | undefined) => writer.only(id),
    };
    const rootRow = spans.load(root.span_id) ?? root;
    const recorder: TraceRecorder = new TraceRecorder({
      root: rootRow, resumed, writer: sink, pricing: this.#pricing, clock: this.#clock, maxArgsChars: this.#options.maxArgsChars ?? 2000,
      startOtel: (continuation) => this.#startOtel(rootRow, continuation, sink),
      release: () => {
        if (this.#live.get(runId)?.recorder === recorder) this.#live.delete(runId);
      },
      load: (spanId) => spans.load(spanId),
      openSpans: () => spans.open().map(rowToSpan),
      openWaits: () => spans.open().filter(isWait),
      countStateChanges: () => spans.stateChanges(),
    });
    this.#live.set(runId, { recorder, spans });
    options.init?.(recorder);
    return recorder;
  }

  // Reads migrate nothing (a reader must not create tables): a schema without `spans` reads as empty.

  /** {@link TraceStore.spans}. */
  async spans(runId: string): Promise<TraceSpan[]> {
    await this.#writer.flush();
    const result = await withoutTable(this.#db.query(numeric("SELECT * FROM spans WHERE run_id = $1 ORDER BY start_ms, seq", [runId])));
    return result === undefined ? [] : parentsFirst(result.rows.map(rowToSpan));
  }

  /** {@link TraceStore.countSpans}. */
  async countSpans(runId: string, kind: SpanKind): Promise<number> {
    await this.#writer.flush();
    const result = await withoutTable(this.#db.query(numeric("SELECT count(*) AS n FROM spans WHERE run_id = $1 AND kind = $2", [runId, kind])));
    return result === undefined ? 0 : (result.rows[0] as { n: number }).n;
  }

  /** {@link TraceStore.hasRun}. */
  async hasRun(runId: string): Promise<boolean> {
    await this.#writer.flush();
    const result = await withoutTable(this.#db.query("SELECT 1 FROM spans WHERE run_id = $1 LIMIT 1", [runId]));
    return result !== undefined && result.rows.length > 0;
  }

  /** {@link TraceStore.stats}: one statement. */
  async stats(options: StatsOptions = {}): Promise<TraceStats> {
    await this.#writer.flush();
    return (await withoutTable(computePostgresStats(this.#db, options))) ?? emptyStats(options.graph ?? null);
  }

  /** {@link TraceStore.flush}. */
  flush(): Promise<void> {
    return this.#writer.flush();
  }

  #flushSoon(): Promise<void> {
    this.#soon ??= new Promise<void>((resolve) => {
      setImmediate(() => {
        this.#soon = undefined;
        resolve(this.#writer.flush());
      });
    });
    return this.#soon;
  }

  async #writeBatch(rows: readonly SpanRow[]): Promise<void> {
    await this.setup();
    // One row per span id: ON CONFLICT cannot touch a row twice in one statement.
    const unique = [...new Map(rows.map((row) => [row.span_id, row])).values()];
    await this.#db.query(PG_UPSERT_BATCH_SQL, columnArrays(unique));
  }

  #startOtel(root: SpanRow, continuation: boolean, sink: { mark(row: SpanRow, urgent?: boolean): void }): OtelBridge | undefined {
    return startRootOtel(root, continuation, this.#options, this.#clock, () => sink.mark(root, true));
  }

  async #attachRoot(runId: string, options: RecorderOptions): Promise<{ root: SpanRow; resumed: boolean; state: StoredRunState }> {
    const spanId = randomHex(8);
    const row = emptyRow({ span_id: spanId, run_id: runId, kind: "invoke_agent", name: `invoke_agent ${runId}`, start_ms: options.startTime ?? this.#clock() });
    row.graph = options.graph ?? null;
    row.agent = options.agent ?? options.graph ?? "agent";
    if (options.extra !== undefined) row.extra_json = JSON.stringify(options.extra);
    // A root another process inserts after this statement's snapshot is neither inserted nor seen: read again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const sql = attempt === 0 ? PG_ATTACH_SQL : PG_RUN_STATE_SQL;
      const state = await this.#runState(sql, attempt === 0 ? columnValues(row) : [runId]);
      const root = state.rows.find((r) => r.kind === "invoke_agent" && r.parent_id === null);
      if (root !== undefined) return { root, resumed: root.span_id !== spanId, state };
    }
    throw new SystemError("INTERNAL", `trace: the root span of run ${runId} was neither inserted nor found`);
  }

  async #runState(sql: string, values: unknown[]): Promise<StoredRunState> {
    const result = await this.#db.query(numeric(sql, values));
    let stateChanges = 0;
    const rows: SpanRow[] = [];
    for (const raw of result.rows as Record<string, unknown>[]) {
      stateChanges = raw.state_changes as number;
      if (raw.span_id !== null) rows.push(toSpanRow(raw));
    }
    return { rows, stateChanges };
  }
}

/**
 * Opens the trace store on a PostgreSQL schema, creating or migrating the `spans` table.
 * @example
 * const store = await openPostgresTraceStore(new PostgresDatabase(target));
 * const rec = await store.recorder("run_01", { graph: "ops_rollback" });
 */
export async function openPostgresTraceStore(db: PostgresDatabase, options: TraceStoreOptions = {}): Promise<PostgresTraceStore> {
  const store = new PostgresTraceStore(db, options);
  await store.setup();
  return store;
}

/**
 * Opens the trace store on a PostgreSQL schema for reading (CLI commands): nothing is created or migrated, a schema
 * without a `spans` table reads as one without traces, and one newer than this agentrt knows is DB_SCHEMA_TOO_NEW.
 */
export async function openPostgresTraceReader(db: PostgresDatabase, options: TraceStoreOptions = {}): Promise<PostgresTraceStore> {
  await assertPostgresSchemaCurrent(db, TRACE_PG_SCHEMA);
  return new PostgresTraceStore(db, options);
}

// PostgreSQL's undefined_table: a schema no run was traced in has no `spans` table, read as empty as on SQLite.
const UNDEFINED_TABLE = "42P01";

/** `read`'s result, or undefined when the `spans` table does not exist. */
async function withoutTable<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if ((error as { code?: unknown }).code === UNDEFINED_TABLE) return undefined;
    throw error;
  }
}
