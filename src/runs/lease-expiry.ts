/**
 * A lease whose renewal the database cannot take (its server unreachable, the connection lost) is still held
 * until it would expire: the run goes on, and a later heartbeat may succeed. Once it has expired by this
 * process's clock the run's signal aborts (LeaseLostError, lease-expired): from then on another worker may
 * recover the run, and the fence would refuse this one's writes anyway.
 * @module
 */
import { LeaseLostError } from "./errors.js";
import type { RunLease } from "./lease.js";
import type { RunStatus } from "./lifecycle.js";

/**
 * Aborts a lease's signal when it expires unrenewed; armed by a renewal refused or still unanswered, disarmed by
 * one that succeeds, closed when the execution ends.
 */
export class LeaseExpiry {
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly lease: RunLease;
  private readonly status: RunStatus;

  /** `status`: the run's status as this process last knew it (for the error's message). */
  constructor(lease: RunLease, status: RunStatus) {
    this.lease = lease;
    this.status = status;
  }

  /** Aborts the signal when the lease's current expiry passes, unless {@link disarm}ed first; idempotent. */
  arm(): void {
    if (this.timer === undefined && !this.closed) this.check();
  }

  /** A renewal went through: the lease is good for another term. */
  disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The execution ended: a renewal answered after this arms nothing. */
  close(): void {
    this.closed = true;
    this.disarm();
  }

  private check(): void {
    const { lease } = this;
    // Re-read at each firing: a renewal that went through meanwhile (the beat that refused was a slow one) moved it.
    const leftMs = lease.expiresAt - lease.store.clock();
    if (leftMs > 0) {
      this.timer = setTimeout(() => this.check(), leftMs);
      // The execution keeps the process alive, never the wait for its lease to run out.
      this.timer.unref();
      return;
    }
    this.timer = undefined;
    lease.abort(new LeaseLostError({ runId: lease.runId, token: lease.token, reason: "lease-expired", status: this.status }));
  }
}
