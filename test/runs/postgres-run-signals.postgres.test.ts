// PostgresRunSignals hears, in commit order, the status changes another store (another pool, as another process
// would have) commits in the same schema: nothing from another schema, nothing of a transaction rolled back.
import { describe, expect, it } from "vitest";
import { PostgresRunStore, Scheduler, type RunSignal } from "../../src/runs/index.js";
import { parseRunSignal, PostgresRunSignals } from "../../src/runs/postgres-run-signals.js";
import { useDatabases, useTestSchema } from "../helpers/postgres.js";

const schema = useTestSchema(import.meta.url);
const database = useDatabases();

/** The signals heard, taken one at a time in the order they came. */
function heard(): { onSignal(signal: RunSignal): void; next(): Promise<RunSignal>; readonly left: number } {
  const queue: RunSignal[] = [];
  let waiting: ((signal: RunSignal) => void) | undefined;
  return {
    onSignal(signal) {
      if (waiting === undefined) queue.push(signal);
      else waiting(signal);
      waiting = undefined;
    },
    next: () => {
      const first = queue.shift();
      return first !== undefined ? Promise.resolve(first) : new Promise((resolve) => (waiting = resolve));
    },
    get left() {
      return queue.length;
    },
  };
}

const claim = { workerId: "w", leaseMs: 60_000 };

describe("PostgresRunSignals", () => {
  it("hears runs created, waiting, approved, finished and canceled by another store (a claim: nothing); nothing from another schema", async () => {
    const { url } = schema.fresh("a");
    const listening = new PostgresRunSignals(database(url));
    expect(listening.crossProcess).toBe(true);
    const writer = PostgresRunStore.open(database(url));
    await writer.ready();
    const elsewhere = PostgresRunStore.open(database(schema.fresh("b").url));
    const signals = heard();
    const stop = await listening.listen(signals);

    const later = Date.now() + 60_000;
    await elsewhere.create({ graphId: "g" });
    const run = await writer.create({ graphId: "g", availableAt: later });
    expect(await signals.next()).toEqual({ runId: run.runId, status: "QUEUED", availableAt: later });
    // A claim notifies nobody (runs V4): the next word is the run's wait.
    const claimed = (await new Scheduler(writer).claimRun(run.runId, claim))!;
    await claimed.lease.transition("WAITING_APPROVAL", { pending: [{ tool: "t" }] });
    expect(await signals.next()).toEqual({ runId: run.runId, status: "WAITING_APPROVAL" });
    // An approval queued for a worker: QUEUED again, claimable from its available_at.
    const approved = await writer.resume(run.runId, { resume: { ok: true } });
    expect(await signals.next()).toEqual({ runId: run.runId, status: "QUEUED", availableAt: approved.availableAt });
    const again = (await new Scheduler(writer).claimRun(run.runId, claim))!;
    await again.lease.transition("SUCCEEDED", { result: 1 });
    expect(await signals.next()).toEqual({ runId: run.runId, status: "SUCCEEDED" });
    const other = await writer.create({ graphId: "g" });
    expect(await signals.next()).toMatchObject({ runId: other.runId, status: "QUEUED" });
    await writer.cancel(other.runId, { actor: "ops" });
    expect(await signals.next()).toEqual({ runId: other.runId, status: "CANCELED" });
    // The run created in the other schema was never heard: every signal so far was this schema's.
    expect(signals.left).toBe(0);
    stop();
  });

  it("hears only its scope: runs queued or retrying on \"queued\", one run's changes on its own", async () => {
    const { url } = schema.fresh("s");
    const listening = new PostgresRunSignals(database(url));
    const writer = PostgresRunStore.open(database(url));
    await writer.ready();
    const [queued, mine] = [heard(), heard()];
    const first = await writer.create({ graphId: "g", threadId: "t1" });
    const stops = [await listening.listen(queued, "queued"), await listening.listen(mine, { runId: first.runId })];
    const second = await writer.create({ graphId: "g", threadId: "t2" });
    expect(await queued.next()).toMatchObject({ runId: second.runId, status: "QUEUED" });
    const claimed = (await new Scheduler(writer).claimRun(first.runId, claim))!;
    await writer.cancel(second.runId, { actor: "ops" });
    await claimed.lease.retry({ delayMs: 0 });
    // The retry is work for a worker and word for the run's listeners; the other run's cancel is neither's.
    expect(await queued.next()).toMatchObject({ runId: first.runId, status: "RETRYING" });
    expect(await mine.next()).toMatchObject({ runId: first.runId, status: "RETRYING" });
    await writer.cancel(first.runId, { actor: "ops" });
    expect(await mine.next()).toEqual({ runId: first.runId, status: "CANCELED" });
    expect([queued.left, mine.left]).toEqual([0, 0]);
    for (const stop of stops) stop();
  });

  it("sends nothing for a transition rolled back", async () => {
    const { url } = schema.fresh("r");
    const db = database(url);
    const listening = new PostgresRunSignals(database(url));
    const writer = PostgresRunStore.open(db);
    const run = await writer.create({ graphId: "g" });
    const signals = heard();
    const stop = await listening.listen(signals);
    const rollback = new Error("rolled back");
    await expect(db.transaction(async (client) => {
      await client.query(`WITH upd AS (UPDATE runs SET status = 'CANCELED' WHERE run_id = $1 RETURNING run_id)
        INSERT INTO run_events (run_id, from_status, to_status, at) SELECT run_id, 'QUEUED', 'CANCELED', 1 FROM upd`, [run.runId]);
      throw rollback;
    })).rejects.toBe(rollback);
    expect((await writer.get(run.runId)).status).toBe("QUEUED");
    // Notifications come in commit order: the first heard after the rollback is the commit that followed it.
    await writer.cancel(run.runId, { actor: "ops" });
    expect(await signals.next()).toEqual({ runId: run.runId, status: "CANCELED" });
    expect(signals.left).toBe(0);
    stop();
  });

  it("parses payloads defensively: a malformed one is no signal", () => {
    expect(parseRunSignal("run_1 QUEUED 1700000000000")).toEqual({ runId: "run_1", status: "QUEUED", availableAt: 1_700_000_000_000 });
    expect(parseRunSignal("run with spaces CANCELED ")).toEqual({ runId: "run with spaces", status: "CANCELED" });
    for (const bad of ["", "run_1", "run_1 DONE ", "run_1 QUEUED soon", "run_1 QUEUED -5", " QUEUED 1", "run_1 QUEUED 1.5", "run_1 QUEUED 1e3"]) {
      expect(parseRunSignal(bad), bad).toBeUndefined();
    }
  });
});
