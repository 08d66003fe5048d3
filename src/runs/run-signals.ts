/**
 * Word that a run changed status, from whichever process on the database changed it: workers wake for new work
 * (a run queued, a decision or an answer stored), waiters wake when a run rests, and the holder of a run hears its
 * cancel. On PostgreSQL this is LISTEN/NOTIFY sent by the commit that changed the run; polling stays only as a slow
 * safety net for word that was lost (a listener hears `onGap` after its connection came back).
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

/** Status changes committed by any process on one database. */
export interface RunSignals {
  /** Listens until the returned function is called; resolves once changes committed from now on are heard. */
  listen(listener: RunSignalListener): Promise<() => void>;
  /** True when signals cross processes (PostgreSQL); false when only this process's own changes are heard. */
  readonly crossProcess: boolean;
}
