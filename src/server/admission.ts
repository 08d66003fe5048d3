/**
 * Admission of runs the server starts itself: at once while the event loop
 * has idle time, else in arrival order as it frees up. Node accepts at most
 * one new connection per event-loop turn, so a loop kept busy by hundreds of
 * runs at once stalls new clients for seconds (and answers finished runs
 * late); holding back the surplus keeps HTTP responsive and turns processor
 * sharing into a first-come queue. The signal is event-loop utilization, not
 * lag: a machine loaded by other processes delays timers but leaves this loop
 * idle, and I/O-bound runs (real model calls) leave it idle too, so neither
 * is held back.
 * @module
 */
import { performance, type EventLoopUtilization } from "node:perf_hooks";

/** Options of {@link Admission}. */
export interface AdmissionOptions {
  /** Share of the last probe period the loop was busy above which new runs wait. @default 0.9 */
  maxUtilization?: number;
  /** Runs always admitted whatever the lag, so a machine loaded by others still makes progress. @default 8 */
  minRunning?: number;
  /** Utilization probe period. @default 10 */
  probeMs?: number;
}

/** Starts per probe period beyond the free slots: at most 400 a second while the loop has room. */
const CREDIT = 4;

/** A FIFO gate in front of run starts, driven by event-loop utilization. */
export class Admission {
  private readonly queue: (() => Promise<unknown>)[] = [];
  private readonly maxUtilization: number;
  private readonly minRunning: number;
  private readonly probeMs: number;
  private running = 0;
  private closed = false;
  private utilization = 0;
  private mark: EventLoopUtilization | undefined;
  /** Starts allowed before the next probe, so a burst of requests in one turn is spread out. */
  private credit = CREDIT;
  private timer: NodeJS.Timeout | undefined;

  constructor(options: AdmissionOptions = {}) {
    this.maxUtilization = options.maxUtilization ?? 0.9;
    this.minRunning = options.minRunning ?? 8;
    this.probeMs = options.probeMs ?? 10;
  }

  /** Runs started here and not yet settled. */
  get active(): number {
    return this.running;
  }

  /** Runs waiting for their turn. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Starts `start` now or when its turn comes; its promise settling frees the slot. It must not reject. */
  admit(start: () => Promise<unknown>): void {
    if (this.closed) return;
    this.queue.push(start);
    this.pump();
    this.ensureProbe();
  }

  /** Stops the probe; queued and later starts are dropped (their runs stay QUEUED for a worker). */
  close(): void {
    this.closed = true;
    this.queue.length = 0;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const free = this.running < this.minRunning;
      if (!free && (this.utilization > this.maxUtilization || this.credit <= 0)) return;
      if (!free) this.credit--;
      const start = this.queue.shift()!;
      this.running++;
      void start().finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  private ensureProbe(): void {
    if (this.timer !== undefined) return;
    this.mark ??= performance.eventLoopUtilization();
    this.timer = setTimeout(() => this.probe(), this.probeMs);
    this.timer.unref();
  }

  private probe(): void {
    this.timer = undefined;
    const now = performance.eventLoopUtilization();
    this.utilization = this.mark === undefined ? 0 : performance.eventLoopUtilization(now, this.mark).utilization;
    this.mark = now;
    this.credit = CREDIT;
    this.pump();
    if (this.running > 0 || this.queue.length > 0) this.ensureProbe();
    else {
      this.utilization = 0;
      this.mark = undefined;
    }
  }
}
