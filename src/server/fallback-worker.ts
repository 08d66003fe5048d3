/**
 * The server's in-process worker when worker processes execute the runs: it
 * claims only while none of them is ready (starting, or all crashed), so a
 * queued or recovered run never waits for a worker process to come back, and
 * otherwise leaves every run to them — a run executed here would take the
 * HTTP side's event loop (its waiters' latency), and runs split over two
 * processes cost both more.
 * @module
 */
import type { Worker } from "../runs/index.js";

/** How often the pool's readiness is looked at. */
const CHECK_MS = 500;

/** Starts and stops in-process workers as the worker processes come and go. */
export class FallbackWorker {
  private current: Worker | undefined;
  /** Every worker started here that may still run (a stopped one finishes its runs first). */
  private readonly live = new Set<{ worker: Worker; done: Promise<unknown> }>();
  private readonly timer: NodeJS.Timeout;

  /** `make` creates a fresh in-process worker; `covered` is true while a worker process takes runs. */
  constructor(private readonly make: () => Worker, private readonly covered: () => boolean) {
    this.check();
    this.timer = setInterval(() => this.check(), CHECK_MS);
    this.timer.unref();
  }

  /** Stops every in-process worker, aborting and handing back the runs they hold. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.current = undefined;
    await Promise.all([...this.live].map(async (entry) => {
      await entry.worker.stop({ abort: true });
      await entry.done;
    }));
  }

  private check(): void {
    if (!this.covered() && this.current === undefined) {
      const worker = this.make();
      const done = worker.run().then(
        () => undefined,
        // A worker that cannot go on (a database upgraded under it) must not take the server down with an unhandled rejection.
        (error: unknown) => void process.stderr.write(`agentrt serve: in-process worker stopped: ${error instanceof Error ? error.message : String(error)}\n`),
      );
      const entry = { worker, done: done.finally(() => this.live.delete(entry)) };
      this.live.add(entry);
      this.current = worker;
    } else if (this.covered() && this.current !== undefined) {
      // Its runs go on to their end here; it just claims no more.
      void this.current.stop();
      this.current = undefined;
    }
  }
}
