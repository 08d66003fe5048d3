/**
 * The one place a process watches the leases it executes under, so a run canceled or taken over by another
 * process stops at once or within about a second — whichever path executes it (worker loop,
 * `Runtime.start`/approve/resume, the server) — not at its next heartbeat (a third of the lease, 10 s by default).
 *
 * With signals (PostgreSQL) the watch listens to each executing run's own word only, reads a lease when word comes
 * that its run left RUNNING/RETRYING (a cancel from any process), and all of them after a gap in that word; it does
 * not poll. Its safety net is the heartbeat,
 * which refuses a lease that is gone. Without signals it reads all its runs' status and token every second.
 * @module
 */
import type { RunLease } from "./lease.js";
import type { RunSignal, RunSignals } from "./run-signals.js";
import type { RunStore } from "./run-store.js";

/** How often the watched runs are read when no signals cross processes. */
export const LEASE_WATCH_MS = 1000;

/** One timer (or one signal listener) and one read per store (a connection) for all the leases executing on it in this process. */
class LeaseWatch {
  private readonly leases = new Set<RunLease>();
  private timer: NodeJS.Timeout | undefined;
  private readonly store: RunStore;
  private checking = false;
  /** A check asked for while one was under way: run again after it (that one may have read too early). */
  private checkAgain = false;

  constructor(store: RunStore) {
    this.store = store;
  }

  add(lease: RunLease, signals: RunSignals | undefined): () => void {
    this.leases.add(lease);
    // With signals, word of this run only (its bucket's channel on PostgreSQL), for as long as it executes here. A
    // cancel committed before that LISTEN took effect goes unheard: the run's next fenced write (its next checkpoint)
    // or heartbeat refuses it, so no read per claim is spent on that window.
    const unlisten = signals?.listen({ onSignal: (signal) => this.heard(signal), onGap: () => void this.checkAll() }, { runId: lease.runId })
      .catch(() => undefined);
    if (signals === undefined && this.timer === undefined) {
      this.timer = setInterval(() => void this.tick(), LEASE_WATCH_MS);
      // The execution keeps the process alive, never the watch of it.
      this.timer.unref();
    }
    return () => {
      this.leases.delete(lease);
      void unlisten?.then((stop) => stop?.());
      if (this.leases.size > 0) return;
      clearInterval(this.timer);
      this.timer = undefined;
    };
  }

  private heard(signal: RunSignal): void {
    // A run going RUNNING is mostly this process's own claim (a takeover needs the lease to have expired first).
    if (signal.status === "RUNNING" || signal.status === "RETRYING") return;
    for (const lease of this.leases) if (lease.runId === signal.runId && !lease.lost) void this.confirm(lease);
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

  /** {@link check}, never skipped: one asked for during another runs after it. */
  private async checkAll(): Promise<void> {
    if (this.checking) {
      this.checkAgain = true;
      return;
    }
    this.checking = true;
    try {
      do {
        this.checkAgain = false;
        await this.check();
      } while (this.checkAgain);
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
      await this.confirm(lease);
    }));
  }

  private async confirm(lease: RunLease): Promise<void> {
    try {
      // Confirms under the lease's own rule (a RETRYING run is held only while backing off here) and aborts its signal.
      await lease.assertHeld();
    } catch {
      // The lease check aborted the run's signal with the reason (canceled, taken over): that is the point.
    }
  }
}

const watches = new WeakMap<RunStore, LeaseWatch>();

/**
 * Watches `lease` until the returned function is called: when its run is canceled, finished or taken
 * over elsewhere, `lease.signal` aborts with the LeaseLostError saying so — at once when `signals` bring word
 * of it, else within about a second.
 */
export function watchLease(lease: RunLease, signals?: RunSignals): () => void {
  let watch = watches.get(lease.store);
  if (watch === undefined) {
    watch = new LeaseWatch(lease.store);
    watches.set(lease.store, watch);
  }
  return watch.add(lease, signals);
}
