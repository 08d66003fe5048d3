/**
 * The SQLite saver's reads: `getTuple` and `getDeltaChannelHistory` (cached, each with the channels whose cached
 * decoded values may go out uncopied, for a read-only view; see read-only-checkpoints.ts) and `list`.
 * @module
 */
import { setImmediate as nextMacrotask } from "node:timers/promises";
import type { RunnableConfig } from "@langchain/core/runnables";
import { getCheckpointId, type CheckpointListOptions, type CheckpointTuple, type DeltaChannelHistory } from "@langchain/langgraph-checkpoint";
import type { Codec } from "../shared/codec.js";
import type { DecodedValues } from "../shared/decoded-values.js";
import type { DeltaHistoryQuery } from "./delta-history.js";
import type { Statements } from "./statements.js";
import type { PageReader } from "./list-parts.js";
import type { ListCursor, ListSelection } from "./list-query.js";
import { headOf, readTuple, splitParts } from "./tuple.js";
import { tupleOf, type TupleCache } from "./tuple-cache.js";

/** list() reads this many rows first (so the first tuple comes fast), then pages grow to MAX_PAGE. */
const FIRST_PAGE = 16;
const MAX_PAGE = 256;

/** What the reads use of their saver. */
export interface CheckpointReadParts {
  statements: Statements;
  codec: Codec;
  deltas: DeltaHistoryQuery;
  /** A list page and its parts, read in one snapshot (see pageReader). */
  readPage: PageReader;
  tupleCache: TupleCache;
  decoded: DecodedValues;
  /** Commits what group commit still holds for a thread (every thread when undefined) before a read. */
  flushPending: (thread?: string) => void;
}

/** A saver's getTuple, list and getDeltaChannelHistory. */
export class CheckpointReads {
  constructor(private readonly parts: CheckpointReadParts) {}

  /** getTuple; the kept values of `shared` channels uncopied. */
  async tuple(config: RunnableConfig, shared?: ReadonlySet<string>): Promise<CheckpointTuple | undefined> {
    const { statements, codec, tupleCache, decoded } = this.parts;
    const configurable = config.configurable ?? {};
    if (configurable.thread_id === undefined || configurable.thread_id === null) return undefined;
    const thread = String(configurable.thread_id);
    const ns = String(configurable.checkpoint_ns ?? "");
    const id = getCheckpointId(config);
    this.parts.flushPending(thread);
    const entry = tupleCache.read(`${thread}\u0000${ns}\u0000${id ?? ""}`, () =>
      splitParts(id ? statements.tupleById.all({ thread, ns, id }) : statements.tupleLatest.all({ thread, ns })) ?? null,
    );
    if (entry === null) return undefined;
    const requested = id ? config : undefined;
    return tupleOf(entry, { thread, ns }, requested, (rows) => readTuple(statements, codec, { thread, ns }, rows.head, rows.parts, requested, decoded), shared);
  }

  /**
   * Newest first. Rows are read a page at a time (keyset pagination) and the
   * event loop gets a turn between pages, so a 10,000-checkpoint thread
   * streams instead of stalling the process.
   */
  async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    const configurable = config.configurable ?? {};
    const selection: ListSelection = {
      threadId: configurable.thread_id === undefined || configurable.thread_id === null ? undefined : String(configurable.thread_id),
      checkpointNs: configurable.checkpoint_ns === undefined ? undefined : String(configurable.checkpoint_ns),
      checkpointId: configurable.checkpoint_id || undefined,
      before: options.before?.configurable?.checkpoint_id || undefined,
      filter: options.filter,
    };
    // Before the namespace lookup: a queued write may add the thread's second namespace.
    this.parts.flushPending(selection.threadId);
    if (selection.threadId !== undefined && selection.checkpointNs === undefined) {
      // The usual thread has one namespace; pinning it lets SQLite walk the primary key in order instead of sorting.
      const namespaces = this.parts.statements.namespacesOf.all(selection.threadId, 2);
      if (namespaces.length === 1) selection.checkpointNs = namespaces[0];
    }
    let remaining = options.limit ?? Number.POSITIVE_INFINITY;
    let cursor: ListCursor | undefined;
    let pageSize = FIRST_PAGE;
    while (remaining > 0) {
      const requested = Math.min(pageSize, remaining);
      const { rows, parsed, parts } = this.parts.readPage(selection, cursor, requested);
      for (const [index, row] of rows.entries()) {
        remaining -= 1;
        const key = { thread: row.thread_id, ns: row.checkpoint_ns };
        yield await readTuple(this.parts.statements, this.parts.codec, key, headOf(row, parsed[index]), parts[index] ?? [], undefined, this.parts.decoded);
      }
      const last = rows.at(-1);
      if (last === undefined || rows.length < requested) return;
      cursor = { checkpointId: last.checkpoint_id, threadId: last.thread_id, checkpointNs: last.checkpoint_ns };
      pageSize = Math.min(pageSize * 4, MAX_PAGE);
      await nextMacrotask();
      this.parts.flushPending(selection.threadId);
    }
  }

  /** getDeltaChannelHistory; the cached seeds of `shared` channels uncopied. */
  async history(config: RunnableConfig, channels: string[], shared?: ReadonlySet<string>): Promise<Record<string, DeltaChannelHistory>> {
    if (channels.length === 0) return {};
    const configurable = config.configurable ?? {};
    const thread = configurable.thread_id === undefined || configurable.thread_id === null ? undefined : String(configurable.thread_id);
    this.parts.flushPending(thread);
    const ns = String(configurable.checkpoint_ns ?? "");
    const id = thread === undefined ? undefined : getCheckpointId(config) || this.parts.statements.latestId.get(thread, ns)?.checkpoint_id;
    if (thread === undefined || id === undefined) return Object.fromEntries(channels.map((channel) => [channel, { writes: [] }]));
    return this.parts.deltas.read(this.parts.codec, thread, ns, id, channels, this.parts.decoded, shared);
  }
}
