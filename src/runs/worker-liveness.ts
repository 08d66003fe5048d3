/**
 * A worker's liveness, as the database itself sees it: held while the worker's process lives, ended by the
 * database when it dies, so another worker can take over a killed worker's runs at once instead of after its
 * leases expire. On PostgreSQL a session advisory lock on a connection of its own (postgres-worker-liveness.ts);
 * SQLite has no sessions, and its workers keep to lease expiry alone. Fencing is unchanged: a takeover recovers the
 * runs as an expired lease would (RETRYING, LEASE_LOST), and the next claim bumps their token.
 * @module
 */

/** Liveness of the workers on one database. */
export interface WorkerLiveness {
  /**
   * Marks `workerId` alive until the returned function is called (or the process dies). Resolves to undefined,
   * never throws, when it cannot (another live process holds that id, the server is unreachable): that worker's
   * runs are then recovered only when their leases expire.
   */
  hold(workerId: string): Promise<(() => Promise<void>) | undefined>;
  /** Recovers the leased runs of every worker whose liveness ended; returns how many it moved. */
  recoverDead(): Promise<number>;
}
