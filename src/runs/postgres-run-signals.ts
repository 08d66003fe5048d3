/**
 * {@link RunSignals} on PostgreSQL: the NOTIFYs schema V3's trigger sends for every run_events row (at COMMIT, so
 * a listener that hears one sees the change), heard on the database's one LISTEN connection.
 * @module
 */
import { notificationChannel, type PostgresDatabase } from "../db/postgres/index.js";
import { isRunStatus } from "./lifecycle.js";
import type { RunSignal, RunSignalListener, RunSignals } from "./run-signals.js";

/** The topic of the runs channel; the trigger computes the same name in SQL. */
const RUNS_TOPIC = "runs";

/** Status changes committed by any process on one PostgreSQL schema. */
export class PostgresRunSignals implements RunSignals {
  readonly crossProcess = true;
  readonly #db: PostgresDatabase;

  constructor(db: PostgresDatabase) {
    this.#db = db;
  }

  async listen(listener: RunSignalListener): Promise<() => void> {
    const unlisten = await this.#db.notifications.listen(notificationChannel(this.#db.schema, RUNS_TOPIC), {
      onMessage: (payload) => {
        const signal = parseRunSignal(payload);
        // Word that cannot be read is word lost: the listener looks at the database as after a gap.
        if (signal === undefined) listener.onGap?.();
        else listener.onSignal(signal);
      },
      onGap: () => listener.onGap?.(),
    });
    return () => void unlisten();
  }
}

/**
 * A payload "<run_id> <status> <available_at ms or empty>" as a signal; undefined when it is not one (the trigger
 * writes them, but anyone who may connect can NOTIFY the channel). Split from the right, so an id may hold spaces.
 */
export function parseRunSignal(payload: string): RunSignal | undefined {
  const last = payload.lastIndexOf(" ");
  const middle = last <= 0 ? -1 : payload.lastIndexOf(" ", last - 1);
  if (middle <= 0) return undefined;
  const runId = payload.slice(0, middle);
  const status = payload.slice(middle + 1, last);
  const at = payload.slice(last + 1);
  if (!isRunStatus(status) || !/^\d{1,15}$/.test(at === "" ? "0" : at)) return undefined;
  return at === "" ? { runId, status } : { runId, status, availableAt: Number(at) };
}
