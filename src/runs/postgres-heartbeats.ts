/**
 * Lease heartbeats on PostgreSQL, batched: a process's renewals wait a little (a thirtieth of the lease, at most a
 * second, so a renewal still lands well inside it: a lease under load must not expire for want of it) and go
 * together as ONE statement, each run fenced by its own token. However many runs a process executes, its heartbeats
 * cost about one UPDATE a second at most (with the default 30 s lease, one per heartbeat period per second-wide
 * phase), not one per run. The statement changes only `lease_expires_at`: no trigger fires (runs V5 watches other
 * columns) and nothing is notified.
 * @module
 */
import type { PgQueryable } from "../db/postgres/index.js";
import { refusedRenewal } from "./postgres-fenced.js";

const RENEW_ALL = `UPDATE runs r SET lease_expires_at = b.expires
  FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS b(run_id, token, expires)
  WHERE r.run_id = b.run_id AND r.fencing_token = b.token AND r.status IN ('RUNNING', 'RETRYING') AND r.lease_owner IS NOT NULL
  RETURNING r.run_id`;

/** The longest a renewal waits for others to join it: a process sends at most about one heartbeat statement a second. */
const MAX_WAIT_MS = 1000;

interface Renewal {
  runId: string;
  fence: number;
  expiresAt: number;
  settle: { resolve: () => void; reject: (error: unknown) => void };
}

/** One process's pending heartbeats on one database. */
export class HeartbeatBatch {
  readonly #on: PgQueryable;
  readonly #clock: () => number;
  #pending: Renewal[] = [];
  #timer: NodeJS.Timeout | undefined;
  #due = Infinity;

  constructor(on: PgQueryable, clock: () => number) {
    this.#on = on;
    this.#clock = clock;
  }

  /** Renews `runId`'s lease to `expiresAt` with the next batch; LeaseLostError when its lease is gone. */
  renew(runId: string, fence: number, expiresAt: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#pending.push({ runId, fence, expiresAt, settle: { resolve, reject } });
      const waitMs = Math.max(0, Math.min(MAX_WAIT_MS, Math.floor((expiresAt - this.#clock()) / 30)));
      this.#schedule(Date.now() + waitMs);
    });
  }

  #schedule(due: number): void {
    if (due >= this.#due) return;
    clearTimeout(this.#timer);
    this.#due = due;
    this.#timer = setTimeout(() => void this.#flush(), Math.max(0, due - Date.now()));
    // A heartbeat keeps nothing alive: the execution it belongs to does.
    this.#timer.unref();
  }

  async #flush(): Promise<void> {
    const batch = this.#pending.splice(0);
    this.#timer = undefined;
    this.#due = Infinity;
    if (batch.length === 0) return;
    let renewed: Set<string>;
    try {
      const result = await this.#on.query<{ run_id: string }>(RENEW_ALL, [
        batch.map((r) => r.runId), batch.map((r) => r.fence), batch.map((r) => r.expiresAt),
      ]);
      renewed = new Set(result.rows.map((row) => row.run_id));
    } catch (error) {
      for (const r of batch) r.settle.reject(error);
      return;
    }
    await Promise.all(batch.map(async (r) => {
      try {
        // Not renewed: the run as it is now says why (LeaseLostError), read only for these.
        if (!renewed.has(r.runId)) await refusedRenewal(this.#on, r.runId, r.fence);
        r.settle.resolve();
      } catch (error) {
        r.settle.reject(error);
      }
    }));
  }
}
