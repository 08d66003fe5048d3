import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  WRITES_IDX_MAP,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  type DeltaChannelHistory,
  type PendingWrite,
  type SerializerProtocol,
} from "@langchain/langgraph-checkpoint";
import { MEMORY_PATH, migrate, openDatabase, type SqliteDatabase } from "../../src/db/index.js";
import { UserInputError } from "../../src/errors.js";
import { Codec, metadataColumn } from "../shared/codec.js";
import { DeltaHistoryQuery } from "./delta-history.js";
import { storageError } from "./errors.js";
import { pageReader } from "./list-parts.js";
import { ListQueries } from "./list-query.js";
import { CommitBatch, type WriteGuard } from "./commit-batch.js";
import { GroupCommit } from "./group-commit.js";
import type { PruneOptions, SqliteSaverBehaviour, SqliteSaverOptions } from "./options.js";
import { pruneThread } from "./prune.js";
import { CHECKPOINT_SCHEMA } from "./schema.js";
import { encodeSkeleton } from "../shared/skeleton-format.js";
import { prepareStatements, type Statements } from "./statements.js";
import { checkpointConfig } from "../shared/checkpoint-config.js";
import { TupleCache } from "./tuple-cache.js";
import { CheckpointReads } from "./checkpoint-reads.js";
import { DecodedValues } from "../shared/decoded-values.js";
import { ReadOnlyCheckpoints, type ReadOnlyViewOptions } from "../shared/read-only-checkpoints.js";
import { nextChannelVersion } from "../shared/versions.js";
import { CheckpointWrites, type CheckpointInsert, type WriteKey, type WriteRecord } from "./writes.js";
import { putValues } from "./put-values.js";

/**
 * A LangGraph checkpoint saver on better-sqlite3, a drop-in for
 * `@langchain/langgraph-checkpoint-sqlite`: channel values are stored once per
 * (channel, version), every put/putWrites is one transaction, list filters
 * run in SQL, and `getDeltaChannelHistory` is one recursive query.
 * @example
 * const saver = SqliteSaver.fromConnString("./agentrt.db");
 * const graph = builder.compile({ checkpointer: saver });
 */
export class SqliteSaver extends BaseCheckpointSaver {
  /** The connection; shared with nothing else unless the caller passed it in. */
  readonly db: SqliteDatabase;
  private ownsConnection = false;
  private readonly codec: Codec;
  private readonly statements: Statements;
  private readonly deltas: DeltaHistoryQuery;
  private readonly tupleCache: TupleCache;
  /** getTuple and getDeltaChannelHistory, with their caches. */
  private readonly reads: CheckpointReads;
  /** Large decoded values (a long thread's message history) by blob key, so a read does not revive them again. */
  private readonly decoded = new DecodedValues();
  /** Its write paths, each plain (for group commit) and as a transaction. */
  private readonly writes: CheckpointWrites;
  /** For `durability: "commit"`: writes of one microtask wave, each resolved once their shared transaction commits. */
  private readonly batch: CommitBatch;
  /** Set for `durability: "group"`: the writes waiting for the end of the event-loop turn. */
  private readonly group: GroupCommit | undefined;
  private readonly beforeWrite: ((config: RunnableConfig) => void | (() => void)) | undefined;

  /**
   * Wraps an open better-sqlite3 connection (as the official saver does) and
   * creates or migrates the tables; `behaviour.durability` picks per-call or group commit. Other connections may
   * write the tables; this one only through savers (they remember per connection what they last wrote).
   */
  constructor(db: SqliteDatabase, serde?: SerializerProtocol, behaviour: SqliteSaverBehaviour = {}) {
    super(serde);
    this.db = db;
    if (behaviour.durability !== undefined && behaviour.durability !== "commit" && behaviour.durability !== "group") {
      throw new UserInputError("BAD_INPUT", `SqliteSaver: durability must be "commit" or "group" (got ${JSON.stringify(behaviour.durability)})`);
    }
    if (behaviour.beforeWrite !== undefined && behaviour.durability === "group") {
      throw new UserInputError("BAD_INPUT", "SqliteSaver: beforeWrite runs inside each write's own transaction; it cannot be combined with durability \"group\"");
    }
    this.beforeWrite = behaviour.beforeWrite;
    try {
      if (!db.memory && !db.readonly) db.pragma("journal_mode = WAL");
      migrate(db, CHECKPOINT_SCHEMA);
      this.statements = prepareStatements(db);
    } catch (error) {
      throw storageError(db.name, "opening the checkpoint tables", error);
    }
    this.codec = new Codec(this.serde);
    this.deltas = new DeltaHistoryQuery(db);
    this.tupleCache = new TupleCache(db, (type, value) => this.codec.reusable(type, value));
    this.writes = new CheckpointWrites(db, this.statements);
    const memo = this.writes.memo;
    this.batch = new CommitBatch(db, () => memo.begin());
    this.group = behaviour.durability === "group" ? new GroupCommit(db, () => memo.begin()) : undefined;
    this.reads = new CheckpointReads({
      statements: this.statements, codec: this.codec, deltas: this.deltas, readPage: pageReader(db, new ListQueries(db), this.statements), tupleCache: this.tupleCache, decoded: this.decoded,
      flushPending: (thread) => this.flushPending(thread),
    });
  }

  /** Opens (or creates) a database file, or `":memory:"`; same signature as the official saver. */
  static fromConnString(connStringOrLocalPath: string): SqliteSaver {
    return SqliteSaver.create({ path: connStringOrLocalPath });
  }

  /** Opens a saver from options; the saver owns the connection and {@link close} closes it. */
  static create(options: SqliteSaverOptions): SqliteSaver {
    const db = openDatabase(options.path || MEMORY_PATH, { busyTimeoutMs: options.busyTimeoutMs, readonly: options.readonly });
    try {
      const saver = new SqliteSaver(db, options.serde, { durability: options.durability, beforeWrite: options.beforeWrite });
      saver.ownsConnection = true;
      return saver;
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /**
   * Commits writes queued by `durability: "group"` now (a no-op otherwise);
   * throws if a queued batch failed to commit.
   */
  async flush(): Promise<void> {
    this.flushPending();
  }

  /**
   * Flushes queued group writes, then closes the connection if this saver opened it (a connection passed to the
   * constructor stays the caller's), and lets go of what its read caches kept (budgets of 112 MB stored, together).
   */
  close(): void {
    try {
      if (this.db.open) this.flushPending();
    } finally {
      if (this.ownsConnection && this.db.open) this.db.close();
      this.decoded.clear();
      this.deltas.forgetDecoded();
      this.tupleCache.clear();
    }
  }

  /**
   * Reads and deletes first commit what group commit still holds for their
   * thread (for every thread when undefined), so every call sees every earlier write.
   */
  private flushPending(thread?: string): void {
    this.batch.flush(thread);
    this.group?.flush(thread);
  }

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    return this.reads.tuple(config);
  }

  /**
   * A view for agentrt's own checks whose reads hand out the cached decoded values of `options.shared` channels
   * uncopied (see read-only-checkpoints.ts); never for users or a graph's execution.
   */
  readOnlyView(options: ReadOnlyViewOptions): ReadOnlyCheckpoints {
    return new ReadOnlyCheckpoints({
      saver: this,
      readTuple: (config, shared) => this.reads.tuple(config, shared),
      readHistory: (config, channels, shared) => this.reads.history(config, channels, shared),
    }, options);
  }

  /** Newest first, a page at a time; see CheckpointReads.list. */
  override async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    yield* this.reads.list(config, options);
  }

  /** Stores the checkpoint skeleton plus only the channels in `newVersions`, in one transaction. */
  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    const configurable = config.configurable;
    if (configurable?.thread_id === undefined || configurable.thread_id === null) {
      throw new UserInputError("BAD_INPUT", "SqliteSaver.put: config.configurable.thread_id is required");
    }
    const thread = String(configurable.thread_id);
    const ns = String(configurable.checkpoint_ns ?? "");
    const parentId: string | null = configurable.checkpoint_id || null;
    const { channel_values: _values, ...skeleton } = checkpoint;
    const values = putValues(this.codec, checkpoint, newVersions);
    const stored = Array.isArray(values) ? values : await values;
    const meta = this.codec.dumpPlainNow(metadata) ?? (await this.codec.dumpPlain(metadata));
    const row: CheckpointInsert = [thread, ns, checkpoint.id, parentId, encodeSkeleton(skeleton), meta.type, metadataColumn(meta)];
    const describe = (error: unknown) => storageError(this.db.name, `put of checkpoint ${checkpoint.id} (thread ${thread})`, error);
    // The write may run after put() returned (a batch of concurrent writers, group durability): it must not read
    // the caller's objects then, which the caller may have changed.
    const versions = { ...skeleton.channel_versions };
    const changed = newVersions === undefined ? undefined : { ...newVersions };
    const write = () => this.writes.writePut(row, stored, versions, changed);
    if (this.group === undefined) await this.batch.submit(thread, write, describe, this.guardFor(config));
    else {
      try {
        this.group.add(thread, write);
      } catch (error) {
        throw describe(error);
      }
    }
    return checkpointConfig(thread, ns, checkpoint.id);
  }

  /** Stores a task's writes in one transaction; special channels (errors, interrupts) replace, others keep the first. */
  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    const configurable = config.configurable;
    if (configurable?.thread_id === undefined || configurable.thread_id === null) {
      throw new UserInputError("BAD_INPUT", "SqliteSaver.putWrites: config.configurable.thread_id is required");
    }
    if (!configurable.checkpoint_id) {
      throw new UserInputError("BAD_INPUT", "SqliteSaver.putWrites: config.configurable.checkpoint_id is required");
    }
    const records: WriteRecord[] = [];
    for (const [index, [channel, value]] of writes.entries()) {
      const special = WRITES_IDX_MAP[channel];
      records.push({ idx: special ?? index, channel, stored: this.codec.dumpNow(value) ?? (await this.codec.dump(value)), upsert: special !== undefined });
    }
    const thread = String(configurable.thread_id);
    const key: WriteKey = [thread, String(configurable.checkpoint_ns ?? ""), String(configurable.checkpoint_id), taskId, taskPath ?? ""];
    const describe = (error: unknown) => storageError(this.db.name, `putWrites for task ${taskId} (thread ${thread})`, error);
    const write = () => this.writes.writeWrites(key, records);
    if (this.group === undefined) return this.batch.submit(thread, write, describe, this.guardFor(config));
    try {
      this.group.add(thread, write);
    } catch (error) {
      throw describe(error);
    }
  }

  /** The `beforeWrite` hook bound to one call's config, if the saver has one. */
  private guardFor(config: RunnableConfig): { hook: WriteGuard; config: RunnableConfig } | undefined {
    return this.beforeWrite === undefined ? undefined : { hook: this.beforeWrite, config };
  }

  /**
   * Copies every checkpoint, value and write of thread `from` to thread `to` (which must have none), in one
   * transaction: the copy's history, state and pending writes are the original's, and both go on separately.
   */
  copyThread(from: string, to: string): void {
    this.flushPending(from);
    this.writes.copyTransaction(to, from);
    this.decoded.forgetThread(to);
  }

  /** Deletes every checkpoint, value and write of a thread, in one transaction. */
  override async deleteThread(threadId: string): Promise<void> {
    this.flushPending(String(threadId));
    this.writes.deleteTransaction(String(threadId));
    this.decoded.forgetThread(String(threadId));
  }

  /**
   * Keeps the newest `keepLast` checkpoints of a thread (per namespace) and
   * deletes the rest with their writes and no-longer-referenced values. When
   * the thread uses DeltaChannels, ancestors still needed to rebuild a kept
   * checkpoint are kept too. Returns how many checkpoints were deleted.
   */
  async prune(options: PruneOptions): Promise<number> {
    if (!Number.isInteger(options.keepLast) || options.keepLast < 1) {
      throw new UserInputError("BAD_INPUT", `SqliteSaver.prune: keepLast must be an integer >= 1 (got ${options.keepLast})`);
    }
    this.flushPending(String(options.threadId));
    this.decoded.forgetThread(String(options.threadId));
    return pruneThread(this.db, this.statements, this.deltas, options);
  }

  /** One recursive query over the ancestor chain; see the base class for the contract. */
  override async getDeltaChannelHistory(options: { config: RunnableConfig; channels: string[] }): Promise<Record<string, DeltaChannelHistory>> {
    return this.reads.history(options.config, options.channels);
  }

  /**
   * Versions are strings (zero-padded counter + random suffix) so forks never
   * share a blob key. LangGraph compares versions with `>` and accepts
   * strings; its types only name the default saver's numbers, hence the cast.
   */
  override getNextVersion(current: number | undefined): number {
    return nextChannelVersion(current) as unknown as number;
  }
}
