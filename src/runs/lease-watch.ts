/**
 * The one place a process watches the leases it executes under: every second, one read of all its
 * in-flight runs' status and fencing token, so a run canceled or taken over by another process stops
 * within about a second — whichever path executes it (worker loop, `Runtime.start`/approve/resume, the
 * server) — not at its next heartbeat (a third of the lease, 10 s by default).
 * @module
 */
import type { RunLease } from "./lease.js";
import type { RunStore } from "./run-store.js";

/** How often the watched runs are read. */
export const LEASE_WATCH_MS = 1000;

/** One timer and one read per store (a connection) for all the leases executing on it in this process. */
class LeaseWatch {
  private readonly leases = new Set<RunLease>();
  private timer: NodeJS.Timeout | undefined;
  private readonly store: RunStore;
  private checking = false;

  constructor(store: RunStore) {
    this.store = store;
  }

  add(lease: RunLease): () => void {
    this.leases.add(lease);
    if (this.timer === undefined) {
      this.timer = setInterval(() => void this.tick(), LEASE_WATCH_MS);
      // The execution keeps the process alive, never the watch of it.
      this.timer.unref();
    }
    return () => {
      this.leases.delete(lease);
      if (this.leases.size > 0) return;
      clearInterval(this.timer);
      this.timer = undefined;
    };
  }

  private async tick(): Promise<void> {
    // A read still under way (a slow database) is not doubled.
    if (this.checking) return;
    this.checking = true;
    try {
      await this.check();
    } finally {
      this.checking = false;
    }
  }

  private async check(): Promise<void> {
    const live = [...this.leases].filter((lease) => !lease.lost);
    if (live.length === 0) return;
    let states: Awaited<ReturnType<RunStore["leaseStates"]>>;
    try {
      states = await this.store.leaseStates(live.map((lease) => lease.runId));
    } catch {
      // A busy or closing file: the next tick reads again, and the heartbeat reports what persists.
      return;
    }
    const byRun = new Map(states.map((state) => [state.runId, state]));
    await Promise.all(live.map(async (lease) => {
      const state = byRun.get(lease.runId);
      if (state !== undefined && (state.status === "RUNNING" || state.status === "RETRYING") && state.fencingToken === lease.token) return;
      try {
        // Confirms under the lease's own rule (a RETRYING run is held only while backing off here) and aborts its signal.
        await lease.assertHeld();
      } catch {
        // The lease check aborted the run's signal with the reason (canceled, taken over): that is the point.
      }
    }));
  }
}

const watches = new WeakMap<RunStore, LeaseWatch>();

/**
 * Watches `lease` until the returned function is called: when its run is canceled, finished or taken
 * over elsewhere, `lease.signal` aborts with the LeaseLostError saying so, within about a second.
 */
export function watchLease(lease: RunLease): () => void {
  let watch = watches.get(lease.store);
  if (watch === undefined) {
    watch = new LeaseWatch(lease.store);
    watches.set(lease.store, watch);
  }
  return watch.add(lease);
}
