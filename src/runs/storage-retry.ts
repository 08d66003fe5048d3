/**
 * A run whose writes the disk refuses (full, or failing) goes RETRYING with a backoff and the reason, not FAILED:
 * the run did nothing wrong, and it can go on once there is room. The write that records this can fail like the
 * others, so it is itself tried again while the disk refuses, for as long as the lease is held. A run whose
 * PostgreSQL connection was lost goes RETRYING too, counted as a crash would be; the write of any outcome is tried
 * again the same way while the server is away.
 * @module
 */
import { setTimeout as sleep } from "node:timers/promises";
import { connectionFailure, storageFailure } from "../db/index.js";
import type { StorageError } from "../errors.js";
import type { RunLease } from "./lease.js";
import type { RunOutcome } from "./outcome.js";

const FIRST_RUN_RETRY_MS = 1000;
const MAX_RUN_RETRY_MS = 30_000;
const FIRST_WRITE_RETRY_MS = 100;
const MAX_WRITE_RETRY_MS = 2000;

/** Backoff before the next attempt of a run the disk stopped on attempt `attempts`: 1 s, 2 s, 4 s … up to 30 s. */
export function storageBackoffMs(attempts: number): number {
  return Math.min(MAX_RUN_RETRY_MS, FIRST_RUN_RETRY_MS * 2 ** Math.max(0, attempts - 1));
}

/** Where a run stopped by a full or failing disk goes: RETRYING after {@link storageBackoffMs}, with the code and reason. */
export function storageRetryOutcome(failure: StorageError, attempts: number): RunOutcome {
  return {
    status: "RETRYING", delayMs: storageBackoffMs(attempts),
    errorCode: failure.code, errorMessage: failure.message, reason: `storage: ${failure.message.split("\n")[0] ?? ""}`,
    // The disk, not the run, failed: however long it stays full, the run keeps its attempts for its own faults.
    refundAttempt: true,
  };
}

/**
 * Where a run goes whose database connection was lost or whose server could not be reached (DB_CONNECTION_LOST,
 * DB_UNREACHABLE): RETRYING after {@link storageBackoffMs}, like a run recovered after a crash. Its attempt counts,
 * as a crash's does, so a run that keeps losing its server ends ATTEMPTS_EXHAUSTED rather than retrying for ever.
 */
export function connectionRetryOutcome(failure: StorageError, attempts: number): RunOutcome {
  return {
    status: "RETRYING", delayMs: storageBackoffMs(attempts),
    errorCode: failure.code, errorMessage: failure.message, reason: `connection: ${failure.message.split("\n")[0] ?? ""}`,
  };
}

/**
 * Runs `write`; while the disk refuses it (see storageFailure) or the PostgreSQL server cannot be reached or cut the
 * connection (a restart: see connectionFailure), tries again after 0.1 s, doubling up to 2 s, as long as the lease is
 * held and, by this process's clock, within the lease as it stood at the first refusal (renewals since do not extend
 * it): after that another process recovers the run from its expired lease. `onFailure` hears the disk's first refusal
 * at once (a waiter must not wait for the disk). Throws the StorageError when it gives up; any other error at once.
 */
export async function writeWhileStorageRefuses<T>(lease: RunLease, write: () => T | Promise<T>, onFailure?: (failure: StorageError) => void): Promise<T> {
  let pause = FIRST_WRITE_RETRY_MS;
  // The lease as it stood at the first refusal: a heartbeat still running beside this loop (a run executed
  // inline) keeps renewing it, and a small renew that fits must not keep a write that does not fit trying forever.
  let deadline: number | undefined;
  let announced = false;
  for (;;) {
    try {
      return await write();
    } catch (error) {
      const disk = storageFailure(error);
      // Given up at once, a run cut off by a server restart of a few seconds waited out its whole lease (30 s by
      // default) before any worker took it up again; the fence refuses this write should the lease be gone meanwhile.
      const failure = disk ?? connectionFailure(error);
      if (failure === undefined) throw error;
      if (disk !== undefined && !announced) {
        announced = true;
        onFailure?.(disk);
      }
      deadline ??= lease.expiresAt;
      if (lease.signal.aborted || lease.store.clock() + pause >= deadline) throw failure;
    }
    // A lost lease or a stopping worker ends the wait early; the next turn of the loop then gives up.
    await sleep(pause, undefined, { signal: lease.signal }).catch(() => undefined);
    pause = Math.min(MAX_WRITE_RETRY_MS, pause * 2);
  }
}
