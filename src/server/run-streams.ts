/**
 * The live chunks an SSE stream listens to, as the routes see them: the in-process StreamBus on SQLite (runs
 * streamed here execute here), the shared chunk log on PostgreSQL (a run may execute in any process and be
 * streamed from any serve process). One interface, so the SSE code has one path.
 * @module
 */
import type { StreamBus, StreamListener } from "../runtime/index.js";

/** Where a server's SSE streams get the chunks of a run. */
export interface RunStreams {
  /** True when a run's chunks reach this process wherever it executes (it need not execute here to be streamed). */
  readonly crossProcess: boolean;
  /**
   * Listens to one run's chunks (asking for `modes`); with `after`, first the chunks numbered after it (a
   * reconnect's Last-Event-ID; 0 for every chunk). Resolves once listening; returns the unsubscribe function.
   */
  subscribe(runId: string, listener: StreamListener, modes: readonly string[], after?: number): Promise<() => void>;
  /** Resolves once every chunk of the run committed so far has been handed to its listeners here. */
  caughtUp(runId: string): Promise<void>;
  /** Stops listening for chunks (the server is closing). */
  close(): Promise<void>;
}

/** The in-process bus as {@link RunStreams}: chunks are handed over as they are published, so always caught up. */
export function busStreams(bus: StreamBus): RunStreams {
  return {
    crossProcess: false,
    subscribe: (runId, listener, modes, after) => Promise.resolve(bus.subscribe(runId, listener, modes, after)),
    caughtUp: () => Promise.resolve(),
    close: () => {
      bus.close();
      return Promise.resolve();
    },
  };
}
