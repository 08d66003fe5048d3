/**
 * {@link RunSignals} on PostgreSQL: the NOTIFYs schema V5's trigger sends for run_events rows (at COMMIT, so a
 * listener that hears one sees the change), heard on the database's one LISTEN connection. Each scope is its own
 * channel, so a process hears only what it listens for: a worker with no room does not hear runs queued, a holder
 * hears its own runs' cancels (with those of the other runs of their buckets) and not every change.
 * @module
 */
import { createHash } from "node:crypto";
import { notificationChannel, type PostgresDatabase } from "../db/postgres/index.js";
import { isRunStatus } from "./lifecycle.js";
import type { RunSignal, RunSignalListener, RunSignals, SignalScope } from "./run-signals.js";

/** The topic of each scope's channel; the trigger computes the same names in SQL. */
const RUNS_TOPIC = "runs";
const QUEUED_TOPIC = "queued";

/** One of 256 channels a run's changes go to: "run" and the first two hex digits of md5(run_id), as the trigger. */
function runTopic(runId: string): string {
  return `run${createHash("md5").update(runId).digest("hex").slice(0, 2)}`;
}

/** Status changes committed by any process on one PostgreSQL schema. */
export class PostgresRunSignals implements RunSignals {
  readonly crossProcess = true;
  readonly #db: PostgresDatabase;

  constructor(db: PostgresDatabase) {
    this.#db = db;
  }

  async listen(listener: RunSignalListener, scope: SignalScope = "all"): Promise<() => void> {
    const topic = scope === "all" ? RUNS_TOPIC : scope === "queued" ? QUEUED_TOPIC : runTopic(scope.runId);
    const only = typeof scope === "object" ? scope.runId : undefined;
    const unlisten = await this.#db.notifications.listen(notificationChannel(this.#db.schema, topic), {
      onMessage: (payload) => {
        const signal = parseRunSignal(payload);
        // Word that cannot be read is word lost: the listener looks at the database as after a gap.
        if (signal === undefined) listener.onGap?.();
        // The bucket's other runs are not this listener's.
        else if (only === undefined || signal.runId === only) listener.onSignal(signal);
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
