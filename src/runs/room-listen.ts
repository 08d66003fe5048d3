/**
 * A worker's listen for runs queued, held only while it has room for one: on PostgreSQL a full worker does not
 * listen to the "queued" channel, so a run queued wakes only workers that can take it.
 * @module
 */
import type { RunSignalListener, RunSignals, SignalScope } from "./run-signals.js";

/** Listens to `scope` while told there is room, and stops while there is none. */
export class RoomListen {
  #listening: Promise<(() => void) | undefined> | undefined;

  constructor(
    private readonly signals: RunSignals | undefined,
    private readonly scope: SignalScope,
    private readonly listener: RunSignalListener,
    private readonly onError: (error: unknown) => void,
  ) {}

  /**
   * Listens when there is `room` and it does not, stops when there is none. Listening again it calls `relistened`
   * once the LISTEN is in effect: a run queued while it did not listen was not heard, so the worker looks once.
   */
  sync(room: boolean, relistened?: () => void): Promise<unknown> {
    if (room && this.#listening === undefined) {
      this.#listening = this.#listen();
      return this.#listening.then(() => relistened?.());
    }
    if (!room) this.stop();
    return Promise.resolve();
  }

  /** Stops listening (once the listen under way, if any, is in effect). */
  stop(): void {
    const listening = this.#listening;
    this.#listening = undefined;
    void listening?.then((stop) => stop?.());
  }

  async #listen(): Promise<(() => void) | undefined> {
    try {
      return await this.signals?.listen(this.listener, this.scope);
    } catch (error) {
      // Without word the safety poll still finds every run, later.
      this.onError(error);
      return undefined;
    }
  }
}
