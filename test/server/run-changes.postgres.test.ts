// The run viewer's change feed on PostgreSQL: a run created and canceled by another process's store reaches the
// feed on its signal, although the feed's own timer is ten minutes away.
import { describe, expect, it } from "vitest";
import { PostgresRunSignals, PostgresRunStore } from "../../src/runs/index.js";
import type { RunView } from "../../src/runtime/index.js";
import { RunRecords } from "../../src/runtime/run-records.js";
import { RunChanges } from "../../src/server/ui/run-changes.js";
import { useDatabases, useTestSchema } from "../helpers/postgres.js";

const schema = useTestSchema(import.meta.url);
const database = useDatabases();

describe("RunChanges on PostgreSQL", () => {
  it("sends a run another store created, then canceled, on their signals", async () => {
    const { url } = schema.fresh("v");
    const db = database(url);
    const store = PostgresRunStore.open(db);
    await store.ready();
    const changes = new RunChanges(new RunRecords(store, new PostgresRunSignals(db)), 600_000);
    const seen: RunView[][] = [];
    let heard: (() => void) | undefined;
    const unsubscribe = changes.subscribe((changed) => {
      seen.push(changed);
      heard?.();
    });
    const next = () => new Promise<void>((resolve) => (heard = resolve));
    try {
      // Its LISTEN is in effect once a signal of this schema reaches a listener started after it.
      const probe = new PostgresRunSignals(db);
      (await probe.listen({ onSignal: () => undefined }))();
      const other = PostgresRunStore.open(database(url));
      const created = next();
      const run = await other.create({ graphId: "g" });
      await created;
      expect(seen.at(-1)?.map((v) => [v.run_id, v.status])).toEqual([[run.runId, "QUEUED"]]);
      const canceled = next();
      await other.cancel(run.runId, { actor: "ops" });
      await canceled;
      expect(seen.at(-1)?.map((v) => [v.run_id, v.status])).toEqual([[run.runId, "CANCELED"]]);
    } finally {
      unsubscribe();
      changes.close();
    }
  });
});
