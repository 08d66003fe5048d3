/**
 * Word that a run changed status, from whichever process on the database changed it: workers wake for new work
 * (a run queued, a decision or an answer stored), waiters wake when a run rests, and the holder of a run hears its
 * cancel. On PostgreSQL this is LISTEN/NOTIFY sent by the commit that changed the run, on a channel per scope (see
 * {@link SignalScope}), so each process hears what it acts on; polling stays only as a slow safety net for word that was lost (a listener hears `onGap` after its connection came back).
 *
 * The safety nets, where they are and why (NOTIFY is not lost while the connection lives, and a lost connection is
 * a gap every listener hears, so these catch only what sends no word at all):
 * - worker loop (worker.ts, `safetyPollMs`, 5 s): a dead worker's lease expires without a status change, so no
 *   signal says its run is claimable; also the claim of runs queued before the worker listened.
 * - lease watch (lease-watch.ts): no timer with signals; the heartbeat (a third of the lease) refuses a lease
 *   that is gone, and a takeover needs the lease to have expired, which stops the run here anyway.
 * - server waiters (server/run-wakes.ts, `SIGNALED_POLL_MS`, 3 s): one shared read of the change counter.
 * - viewer feed (server/ui/run-changes.ts): keeps its 300 ms poll of the change counter, because usage moving
 *   (steps, tokens) changes no status and sends no signal.
 * @module
 */
import type { RunStatus } from "./lifecycle.js";

/** One committed status change. */
export interface RunSignal {
  runId: string;
  /** The status the run changed to. */
  status: RunStatus;
  /** For QUEUED and RETRYING: when the run may be claimed (ms since epoch); undefined means now. */
  availableAt?: number;
}

/** Receives run signals; must not throw. */
export interface RunSignalListener {
  onSignal(signal: RunSignal): void;
  /** Signals may have been missed (the connection was lost and is back): look at the database again. */
  onGap?(): void;
}

/**
 * Which changes a listener hears: "all" (a viewer, a draining worker), "queued" (runs queued or retrying: work for a
 * worker with room), or one run's (its holder hears its cancel, its waiters its rest). A claim (to RUNNING) is not
 * signaled to "queued" or to the run's listeners, and may not be to "all".
 */
export type SignalScope = "all" | "queued" | { runId: string };

/** Status changes committed by any process on one database. */
export interface RunSignals {
  /**
   * Listens until the returned function is called; resolves once changes committed from now on are heard.
   * `scope` narrows what is heard (on PostgreSQL, which channel is listened to). @default "all"
   */
  listen(listener: RunSignalListener, scope?: SignalScope): Promise<() => void>;
  /** True when signals cross processes (PostgreSQL); false when only this process's own changes are heard. */
  readonly crossProcess: boolean;
}
