/**
 * A read-only view of a saver for agentrt's own checks of a thread (is this approval still pending, did the run
 * stop where it says): a saver hands every reader its own deep copy of a long thread's history, because callers
 * change what they read, and a resume read the thread three times to check it before LangGraph read it once more
 * to run it. The view hands the cached decoded values of the channels it is told are safe to share as they are, and
 * can leave channels out altogether for a check that reads no values. Never hand it, or what it returns, to users
 * or to a graph's execution.
 * @module
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  type DeltaChannelHistory,
  type PendingWrite,
} from "@langchain/langgraph-checkpoint";

/** Which channels a {@link ReadOnlyCheckpoints} view shares with the saver's cache, and which it does not read. */
export interface ReadOnlyViewOptions {
  /**
   * Channels whose cached decoded values (a tuple's channel value, a delta history's seed) are handed out without a
   * copy: only those whose reducer never changes the value it is given (LangGraph's messagesDeltaReducer), read by a
   * reader that changes nothing it reads.
   */
  shared: ReadonlySet<string>;
  /**
   * Channels the view reads no history of: getDeltaChannelHistory answers an empty one (no seed, no writes), so the
   * channel starts empty. For a check of tasks and interrupts only, which no channel value decides.
   */
  skipped?: ReadonlySet<string>;
}

/** The reads a saver serves its views with: its own, with the channels whose values may go out uncopied. */
export interface ReadOnlySource {
  /** getTuple, the values of `shared` channels uncopied. */
  readTuple(config: RunnableConfig, shared: ReadonlySet<string>): Promise<CheckpointTuple | undefined>;
  /** getDeltaChannelHistory, the seeds of `shared` channels uncopied. */
  readHistory(config: RunnableConfig, channels: string[], shared: ReadonlySet<string>): Promise<Record<string, DeltaChannelHistory>>;
  /** The saver itself, for what the view passes through. */
  saver: BaseCheckpointSaver;
}

/** Thrown by a write through a {@link ReadOnlyCheckpoints} view. */
export class ReadOnlyViewError extends Error {
  /** Stable code. */
  readonly code = "INTERNAL";
  constructor(method: string) {
    super(`${method} through a read-only checkpoint view: the view is for agentrt's own checks, never for a graph's execution`);
  }
}

/** A saver's read-only view; see the module comment. Writes throw {@link ReadOnlyViewError}. */
export class ReadOnlyCheckpoints extends BaseCheckpointSaver {
  private readonly shared: ReadonlySet<string>;
  private readonly skipped: ReadonlySet<string>;

  /** A view of `source` sharing and skipping the channels `options` names. */
  constructor(private readonly source: ReadOnlySource, options: ReadOnlyViewOptions) {
    super(source.saver.serde);
    this.shared = options.shared;
    this.skipped = options.skipped ?? new Set();
  }

  override getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    return this.source.readTuple(config, this.shared);
  }

  override async getDeltaChannelHistory(options: { config: RunnableConfig; channels: string[] }): Promise<Record<string, DeltaChannelHistory>> {
    const read = options.channels.filter((channel) => !this.skipped.has(channel));
    const histories = read.length === 0 ? {} : await this.source.readHistory(options.config, read, this.shared);
    for (const channel of options.channels) if (this.skipped.has(channel)) histories[channel] = { writes: [] };
    return histories;
  }

  /** The saver's own list: every tuple a copy. */
  override list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    return this.source.saver.list(config, options);
  }

  override getNextVersion(current: number | undefined): number {
    return this.source.saver.getNextVersion(current);
  }

  override put(_config: RunnableConfig, _checkpoint: Checkpoint, _metadata: CheckpointMetadata, _versions: ChannelVersions): Promise<RunnableConfig> {
    return Promise.reject(new ReadOnlyViewError("put"));
  }

  override putWrites(_config: RunnableConfig, _writes: PendingWrite[], _taskId: string): Promise<void> {
    return Promise.reject(new ReadOnlyViewError("putWrites"));
  }

  override deleteThread(_threadId: string): Promise<void> {
    return Promise.reject(new ReadOnlyViewError("deleteThread"));
  }
}
