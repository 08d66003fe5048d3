// Micro benchmarks of checkpoint savers: put, putWrites, getTuple (latest), list. The savers are
// measured in interleaved rounds, so load drifting on a shared machine hits each of them alike.
import { uuid6, type BaseCheckpointSaver, type Checkpoint } from "@langchain/langgraph-checkpoint";
import type { RunnableConfig } from "@langchain/core/runnables";

/**
 * Operations per second of each contestant: `total` calls each, in `rounds` alternating slices,
 * after a warmup slice. `settle[name]` runs at the end of every slice inside the timing (a group
 * commit saver flushes there, so every measured write is on disk when its time stops).
 */
export async function interleaved<K extends string>(
  contestants: Record<K, (i: number) => Promise<unknown>>,
  total: number,
  rounds = 10,
  settle: Partial<Record<K, () => Promise<unknown>>> = {},
): Promise<Record<K, number>> {
  const names = Object.keys(contestants) as K[];
  const slice = Math.max(1, Math.floor(total / rounds));
  const elapsed = Object.fromEntries(names.map((name) => [name, 0])) as Record<K, number>;
  let call = 0;
  for (let round = -1; round < rounds; round++) {
    for (const name of round % 2 === 0 ? names : [...names].reverse()) {
      const op = contestants[name];
      const start = performance.now();
      for (let i = 0; i < slice; i++) await op(call + i);
      await settle[name]?.();
      if (round >= 0) elapsed[name] += performance.now() - start;
    }
    call += slice;
  }
  return Object.fromEntries(names.map((name) => [name, (slice * rounds * 1000) / elapsed[name]])) as Record<K, number>;
}

/**
 * A checkpoint shaped like a small agent's: a few messages, a counter, routing
 * channels; step `i` changes three of its five channels, as a graph step does.
 */
export function agentCheckpoint(step: number): { checkpoint: Checkpoint; newVersions: Record<string, number> } {
  const versions = { __start__: 1, messages: step + 1, counter: step + 1, "branch:to:agent": step + 1, context: 1 };
  // Through JSON, as messages from a model's API arrive: a template literal's result is a rope that the first
  // JSON.stringify flattens, and in interleaved rounds that cost fell on whichever saver went first with the input.
  const messages = JSON.parse(
    JSON.stringify(Array.from({ length: 4 }, (_, i) => ({ role: i % 2 ? "ai" : "user", content: `message ${i} of step ${step}: ${"lorem ipsum ".repeat(8)}` }))),
  ) as { role: string; content: string }[];
  return {
    checkpoint: {
      v: 4,
      id: uuid6(step),
      ts: new Date().toISOString(),
      channel_values: { __start__: { input: "hi" }, messages, counter: step, "branch:to:agent": null, context: { user: "ann", tz: "UTC", tags: ["a", "b"] } },
      channel_versions: versions,
      versions_seen: { agent: { "branch:to:agent": step }, __input__: {} },
    },
    newVersions: step === 0 ? versions : { messages: step + 1, counter: step + 1, "branch:to:agent": step + 1 },
  };
}

/** Figures of the micro benchmarks, per saver. */
export interface OpFigures {
  put: number;
  putWrites: number;
  /** The latest checkpoint again and again (a saver may serve it from a cache while nothing changed). */
  getTuple: number;
  /** A different checkpoint (by id) on every call: no cache can help. */
  getTupleById: number;
  list200: number;
}

async function fillThread(saver: BaseCheckpointSaver, threadId: string, count: number): Promise<RunnableConfig> {
  let config: RunnableConfig = { configurable: { thread_id: threadId, checkpoint_ns: "" } };
  for (let i = 0; i < count; i++) {
    const { checkpoint, newVersions } = agentCheckpoint(i);
    config = await saver.put(config, checkpoint, { source: "loop", step: i, parents: {} }, newVersions);
  }
  return config;
}

/** A saver that batches writes (group commit) and must flush before a timing stops. */
interface Flushable {
  flush(): Promise<void>;
}
const flushOf = (saver: BaseCheckpointSaver) => ("flush" in saver ? () => (saver as unknown as Flushable).flush() : undefined);

/**
 * Runs the micro benchmarks on every saver, interleaved. Inputs (checkpoints,
 * writes) are built before the timing, the same objects for every saver, so
 * the figures are the savers' own cost.
 */
export async function measureOps<K extends string>(savers: Record<K, BaseCheckpointSaver>, count: number): Promise<Record<K, OpFigures>> {
  const names = Object.keys(savers) as K[];
  const each = <T>(make: (saver: BaseCheckpointSaver, name: K) => T) => Object.fromEntries(names.map((n) => [n, make(savers[n], n)])) as Record<K, T>;
  const settle = Object.fromEntries(names.flatMap((n) => (flushOf(savers[n]) ? [[n, flushOf(savers[n])]] : []))) as Partial<Record<K, () => Promise<void>>>;
  const parents = each(() => ({ configurable: { thread_id: "bench-put", checkpoint_ns: "" } }) as RunnableConfig);
  const calls = Math.ceil(count * 1.1) + 1;
  const inputs = Array.from({ length: calls }, (_, i) => agentCheckpoint(i + 1));
  const ids = each(() => [] as RunnableConfig[]);
  const put = await interleaved(
    each((saver, name) => async (i: number) => {
      const { checkpoint, newVersions } = inputs[i] ?? agentCheckpoint(i + 1);
      parents[name] = await saver.put(parents[name], checkpoint, { source: "loop", step: i, parents: {} }, newVersions);
      ids[name].push(parents[name]);
    }),
    count,
    10,
    settle,
  );
  // getTuple before putWrites: the latest checkpoint then carries no pile of bench writes to load.
  const getTuple = await interleaved(each((saver) => () => saver.getTuple({ configurable: { thread_id: "bench-put" } })), count);
  const getTupleById = await interleaved(
    each((saver, name) => (i: number) => saver.getTuple(ids[name][(i * 7919) % ids[name].length] ?? parents[name])),
    count,
  );
  const writes = Array.from({ length: calls }, (_, i) => [["messages", [{ role: "ai", content: `write ${i}` }]], ["counter", i]] as [string, unknown][]);
  const putWrites = await interleaved(
    each((saver, name) => (i: number) => saver.putWrites(parents[name], writes[i] ?? [], `task-${i}`)),
    count,
    10,
    settle,
  );
  for (const name of names) {
    await fillThread(savers[name], "bench-list", 200);
    await settle[name]?.();
  }
  const list200 = await interleaved(
    each((saver) => async () => {
      let n = 0;
      for await (const _ of saver.list({ configurable: { thread_id: "bench-list" } })) n += 1;
      if (n !== 200) throw new Error(`list returned ${n} checkpoints, expected 200`);
    }),
    Math.max(10, Math.floor(count / 100)),
    5,
  );
  return each((_, name) => ({ put: put[name], putWrites: putWrites[name], getTuple: getTuple[name], getTupleById: getTupleById[name], list200: list200[name] }));
}

/** Concurrent writers of {@link concurrentPuts}, and puts each makes per timed call. */
export const WRITERS = 32;
const PUTS_PER_WRITER = 8;

/**
 * Aggregate puts/s with {@link WRITERS} writers at once through one saver: each writer awaits its own
 * puts on its own thread, the writers interleave on the event loop (as 32 graphs on one server do).
 * Every put has resolved when a call's time stops, so a saver that resolves a put only after its
 * commit has every measured write on disk.
 */
export async function concurrentPuts<K extends string>(savers: Record<K, BaseCheckpointSaver>, total: number): Promise<Record<K, number>> {
  const names = Object.keys(savers) as K[];
  const inputs = Array.from({ length: PUTS_PER_WRITER * 4 }, (_, i) => agentCheckpoint(i + 1));
  const parents = Object.fromEntries(
    names.map((n) => [n, Array.from({ length: WRITERS }, (_, w) => ({ configurable: { thread_id: `bench-concurrent-${w}`, checkpoint_ns: "" } }) as RunnableConfig)]),
  ) as Record<K, RunnableConfig[]>;
  const perCall = WRITERS * PUTS_PER_WRITER;
  const rounds = 10;
  const callCount = Math.max(10, Math.ceil(total / perCall));
  // Every put's checkpoint (a fresh id on a shared input) is built before the timing, like the other benches'
  // inputs: minting a uuid6 costs about as much as a third of a batched put, the same for every saver.
  const slices = rounds + 1;
  const fresh = Array.from({ length: Math.max(1, Math.floor(callCount / rounds)) * slices * perCall }, (_, n) => {
    const step = Math.floor(n / WRITERS);
    const { checkpoint } = inputs[step % inputs.length] ?? agentCheckpoint(step + 1);
    return { ...checkpoint, id: uuid6(n) };
  });
  const calls = await interleaved(
    Object.fromEntries(
      names.map((name) => [
        name,
        (call: number) =>
          Promise.all(
            parents[name].map(async (_, w) => {
              for (let k = 0; k < PUTS_PER_WRITER; k++) {
                const step = call * PUTS_PER_WRITER + k;
                const checkpoint = fresh[step * WRITERS + w] ?? { ...(inputs[0] ?? agentCheckpoint(1)).checkpoint, id: uuid6(step * WRITERS + w) };
                parents[name][w] = await savers[name].put(parents[name][w] ?? {}, checkpoint, { source: "loop", step, parents: {} }, { messages: step + 1, counter: step + 1 });
              }
            }),
          ),
      ]),
    ) as Record<K, (i: number) => Promise<unknown>>,
    callCount,
    rounds,
    Object.fromEntries(names.flatMap((n) => (flushOf(savers[n]) ? [[n, flushOf(savers[n])]] : []))) as Partial<Record<K, () => Promise<void>>>,
  );
  return Object.fromEntries(names.map((name) => [name, calls[name] * perCall])) as Record<K, number>;
}
