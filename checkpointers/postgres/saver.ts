import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  WRITES_IDX_MAP,
  getCheckpointId,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  type DeltaChannelHistory,
  type PendingWrite,
  type SerializerProtocol,
} from "@langchain/langgraph-checkpoint";
import { parseDatabaseTarget, type PostgresTarget } from "../../src/db/database-target.js";
import { migrateOnce, PostgresDatabase } from "../../src/db/postgres/index.js";
import { UserInputError } from "../../src/errors.js";
import { Codec, type StoredValue } from "../shared/codec.js";
import { encodeSkeleton } from "../shared/skeleton-format.js";
import { nextChannelVersion } from "../shared/versions.js";
import { readDeltaHistory } from "./delta-history.js";
import { listPage, type PgListCursor, type PgListSelection } from "./list-query.js";
import type { PostgresBeforeWrite, PostgresSaverBehaviour, PostgresSaverOptions } from "./options.js";
import { PG_CHECKPOINT_SCHEMA } from "./schema.js";
import { COPY_THREAD, DELETE_THREAD, PUT, PUT_WRITES, TUPLE_BY_ID, TUPLE_LATEST, type NamedSql, type TupleRow } from "./statements.js";
import { rowToTuple } from "./tuple.js";
import { checkpointConfig } from "../shared/checkpoint-config.js";
import { ReadOnlyCheckpoints, type ReadOnlyViewOptions } from "../shared/read-only-checkpoints.js";

/** list() reads this many rows first (so the first tuple comes fast), then pages grow to MAX_PAGE. */
const FIRST_PAGE = 16;
const MAX_PAGE = 256;

const bytes = (stored: StoredValue): Buffer =>
  typeof stored.value === "string" ? Buffer.from(stored.value, "utf8") : Buffer.from(stored.value.buffer, stored.value.byteOffset, stored.value.byteLength);

/**
 * A LangGraph checkpoint saver on PostgreSQL, agentrt's counterpart of its SqliteSaver (same skeleton format and
 * codec): channel values are stored once per (channel, version), put and putWrites are each one statement
 * (or one transaction around the `beforeWrite` hook), a tuple read is one statement, list filters run in SQL,
 * and `getDeltaChannelHistory` is one recursive query.
 * @example
 * const saver = PostgresSaver.fromConnString("postgres://user@host/db?schema=agentrt");
 * const graph = builder.compile({ checkpointer: saver });
 */
export class PostgresSaver extends BaseCheckpointSaver {
  /** The pooled database (its schema holds the tables); shared with nothing else unless the caller passed it in. */
  readonly db: PostgresDatabase;
  private ownsDatabase = false;
  private readonly codec: Codec;
  private readonly beforeWrite: PostgresBeforeWrite | undefined;
  readonly #migrate: () => Promise<void>;

  /** Wraps an open {@link PostgresDatabase}; the tables are created or migrated on first use (or by {@link setup}). */
  constructor(db: PostgresDatabase, serde?: SerializerProtocol, behaviour: PostgresSaverBehaviour = {}) {
    super(serde);
    this.db = db;
    this.#migrate = migrateOnce(db, PG_CHECKPOINT_SCHEMA);
    this.codec = new Codec(this.serde);
    this.beforeWrite = behaviour.beforeWrite;
  }

  /** Opens a saver on a `postgres://` URL (its `schema` parameter, or `options.schema`); {@link close} ends its pool. */
  static fromConnString(url: string, options: PostgresSaverOptions = {}): PostgresSaver {
    const target = parseDatabaseTarget(url);
    if (target.kind !== "postgres") throw new UserInputError("BAD_INPUT", "PostgresSaver.fromConnString: expected a postgres:// URL");
    const db = new PostgresDatabase(options.schema === undefined ? target : withSchema(url, options.schema), { maxConnections: options.maxConnections });
    const saver = new PostgresSaver(db, options.serde, { beforeWrite: options.beforeWrite });
    saver.ownsDatabase = true;
    return saver;
  }

  /** Creates or migrates the checkpoint tables now (every method also does on first use). */
  async setup(): Promise<void> {
    await this.ready();
  }

  /** Ends the pool if this saver opened it (a database passed to the constructor stays the caller's). */
  async close(): Promise<void> {
    if (this.ownsDatabase) await this.db.close();
  }

  private ready(): Promise<unknown> {
    return this.#migrate();
  }

  private async rows(sql: NamedSql | string, values: unknown[]): Promise<TupleRow[]> {
    await this.ready();
    return (await this.db.query<TupleRow>(sql, values)).rows;
  }

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const configurable = config.configurable ?? {};
    if (configurable.thread_id === undefined || configurable.thread_id === null) return undefined;
    const thread = String(configurable.thread_id);
    const ns = String(configurable.checkpoint_ns ?? "");
    const id = getCheckpointId(config);
    const [row] = id ? await this.rows(TUPLE_BY_ID, [thread, ns, id]) : await this.rows(TUPLE_LATEST, [thread, ns]);
    return row === undefined ? undefined : rowToTuple(this.codec, row, id ? config : undefined);
  }

  /**
   * A view for agentrt's own checks (see read-only-checkpoints.ts). This saver keeps no decoded values, so every read
   * is its reader's own anyway; the view still reads no history of `options.skipped` channels.
   */
  readOnlyView(options: ReadOnlyViewOptions): ReadOnlyCheckpoints {
    return new ReadOnlyCheckpoints({
      saver: this,
      readTuple: (config) => this.getTuple(config),
      readHistory: (config, channels) => this.getDeltaChannelHistory({ config, channels }),
    }, options);
  }

  /** Newest first, a page (one statement) at a time with keyset pagination, so a long thread streams. */
  override async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    const configurable = config.configurable ?? {};
    const selection: PgListSelection = {
      threadId: configurable.thread_id === undefined || configurable.thread_id === null ? undefined : String(configurable.thread_id),
      checkpointNs: configurable.checkpoint_ns === undefined || configurable.checkpoint_ns === null ? undefined : String(configurable.checkpoint_ns),
      checkpointId: configurable.checkpoint_id || undefined,
      before: options.before?.configurable?.checkpoint_id || undefined,
      filter: options.filter,
    };
    let remaining = options.limit ?? Number.POSITIVE_INFINITY;
    let cursor: PgListCursor | undefined;
    let pageSize = FIRST_PAGE;
    while (remaining > 0) {
      const requested = Math.min(pageSize, remaining);
      const page = listPage(selection, cursor, requested);
      const rows = await this.rows(page.text, page.values);
      for (const row of rows) {
        remaining -= 1;
        yield await rowToTuple(this.codec, row);
      }
      const last = rows.at(-1);
      if (last === undefined || rows.length < requested) return;
      cursor = { checkpointId: last.checkpoint_id, threadId: last.thread_id, checkpointNs: last.checkpoint_ns };
      pageSize = Math.min(pageSize * 4, MAX_PAGE);
    }
  }

  /** Stores the checkpoint skeleton plus only the channels in `newVersions`, in one statement. */
  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    const configurable = config.configurable;
    if (configurable?.thread_id === undefined || configurable.thread_id === null) {
      throw new UserInputError("BAD_INPUT", "PostgresSaver.put: config.configurable.thread_id is required");
    }
    const thread = String(configurable.thread_id);
    const ns = String(configurable.checkpoint_ns ?? "");
    const { channel_values: values, ...skeleton } = checkpoint;
    const channels: string[] = [];
    const versions: string[] = [];
    const types: string[] = [];
    const data: Buffer[] = [];
    for (const [channel, version] of Object.entries(newVersions ?? {})) {
      // A channel absent from channel_values (an empty channel, a DeltaChannel between snapshots) stores nothing.
      if (values === undefined || !Object.prototype.hasOwnProperty.call(values, channel)) continue;
      const stored = this.codec.dumpNow(values[channel]) ?? (await this.codec.dump(values[channel]));
      channels.push(channel);
      versions.push(String(version));
      types.push(stored.type);
      data.push(bytes(stored));
    }
    const meta = this.codec.dumpPlainNow(metadata) ?? (await this.codec.dumpPlain(metadata));
    const json = jsonbText(meta);
    const params = [thread, ns, checkpoint.id, configurable.checkpoint_id || null, encodeSkeleton(skeleton), meta.type, json, json === null ? bytes(meta) : null, channels, versions, types, data];
    await this.write(config, PUT, params);
    return checkpointConfig(thread, ns, checkpoint.id);
  }

  /** Stores a task's writes in one statement; special channels (errors, interrupts) replace, others keep the first. */
  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    const configurable = config.configurable;
    if (configurable?.thread_id === undefined || configurable.thread_id === null) {
      throw new UserInputError("BAD_INPUT", "PostgresSaver.putWrites: config.configurable.thread_id is required");
    }
    if (!configurable.checkpoint_id) throw new UserInputError("BAD_INPUT", "PostgresSaver.putWrites: config.configurable.checkpoint_id is required");
    // One row per idx (a statement may not upsert a row twice): a special channel's last write wins, as sequential upserts would.
    const byIdx = new Map<number, [string, StoredValue]>();
    for (const [index, [channel, value]] of writes.entries()) {
      const idx = WRITES_IDX_MAP[channel] ?? index;
      byIdx.set(idx, [channel, this.codec.dumpNow(value) ?? (await this.codec.dump(value))]);
    }
    const idxs = [...byIdx.keys()];
    const rows = [...byIdx.values()];
    const params = [
      String(configurable.thread_id),
      String(configurable.checkpoint_ns ?? ""),
      String(configurable.checkpoint_id),
      taskId,
      taskPath ?? "",
      idxs,
      rows.map(([channel]) => channel),
      rows.map(([, stored]) => stored.type),
      rows.map(([, stored]) => bytes(stored)),
    ];
    await this.write(config, PUT_WRITES, params);
  }

  /**
   * Runs one write statement: alone (atomic on its own) without a hook; with one, in a transaction after the hook,
   * calling what the hook returned if the transaction then fails.
   */
  private async write(config: RunnableConfig, sql: NamedSql, params: unknown[]): Promise<void> {
    await this.ready();
    const hook = this.beforeWrite;
    if (hook === undefined) {
      await this.db.query(sql, params);
      return;
    }
    let undo: ((error: unknown) => void) | undefined;
    try {
      // The write goes with COMMIT (and the hook's first statement with BEGIN, or the statement it held with both).
      await this.db.transaction(async (client) => {
        const returned = await hook(client, config);
        if (typeof returned === "function") undo = returned;
      }, { last: { text: sql, values: params } });
    } catch (error) {
      undo?.(error);
      throw error;
    }
  }

  /**
   * Copies every checkpoint, value and write of thread `from` to thread `to` (which must have none), in one
   * statement: the copy's history, state and pending writes are the original's.
   */
  async copyThread(from: string, to: string): Promise<void> {
    await this.ready();
    await this.db.query(COPY_THREAD, [to, from]);
  }

  /** Deletes every checkpoint, value and write of a thread, in one statement. */
  override async deleteThread(threadId: string): Promise<void> {
    await this.ready();
    await this.db.query(DELETE_THREAD, [String(threadId)]);
  }

  /** One recursive query over the ancestor chain; see the base class for the contract. */
  override async getDeltaChannelHistory(options: { config: RunnableConfig; channels: string[] }): Promise<Record<string, DeltaChannelHistory>> {
    const { config, channels } = options;
    if (channels.length === 0) return {};
    const configurable = config.configurable ?? {};
    if (configurable.thread_id === undefined || configurable.thread_id === null) {
      return Object.fromEntries(channels.map((channel) => [channel, { writes: [] }]));
    }
    await this.ready();
    const key = { thread: String(configurable.thread_id), ns: String(configurable.checkpoint_ns ?? ""), id: getCheckpointId(config) || undefined };
    return readDeltaHistory(this.db, this.codec, key, channels);
  }

  /** String versions (zero-padded counter + random suffix), as the SQLite saver: forks never share a blob key. */
  override getNextVersion(current: number | undefined): number {
    return nextChannelVersion(current) as unknown as number;
  }
}

/** The target of `url` in another schema (validated as the URL's own `schema` parameter would be). */
function withSchema(url: string, schema: string): PostgresTarget {
  const named = new URL(url);
  named.searchParams.set("schema", schema);
  return parseDatabaseTarget(named.toString()) as PostgresTarget;
}

/** JSON escapes JSONB refuses: `\u0000`, and a lone surrogate (JSON.stringify escapes only unpaired ones). */
const NOT_JSONB = /\\u(0000|d[89a-f])/i;

/** Metadata as JSONB text when the serde wrote JSON that JSONB can hold, else null (it goes to `metadata_bytes`). */
function jsonbText(stored: StoredValue): string | null {
  if (stored.type !== "json") return null;
  const text = typeof stored.value === "string" ? stored.value : Buffer.from(stored.value).toString("utf8");
  return NOT_JSONB.test(text) ? null : text;
}
