import { copyFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { SqliteRunStore, Scheduler } from "../../src/runs/index.js";
import { SqliteToolLedger } from "../../src/ledger/sqlite-ledger.js";
import { tempDbPath } from "./helpers.js";

const V1 = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "historical", "runs-ledger-v1.sqlite");

describe("a database written by schema version 1", () => {
  it("is read, unchanged, through a read-only connection", async () => {
    const db = openDatabase(V1, { readonly: true });
    const store = SqliteRunStore.open(db);
    const ledger = SqliteToolLedger.open(db);
    expect((await store.list()).map((r) => [r.runId, r.status])).toEqual([
      ["run_queued", "QUEUED"],
      ["run_waiting", "WAITING_APPROVAL"],
      ["run_done", "SUCCEEDED"],
    ]);
    expect(await store.get("run_waiting")).toMatchObject({
      userId: "bob",
      usage: { steps: 2, modelCalls: 2, tokens: 1500, costUsd: 0.01 },
      budget: { maxSteps: 20 },
      pending: [{ action_id: "act_1", tool: "rollback_deployment", args_hash: "sha256:bb" }],
      attempts: 1,
      fencingToken: 1,
      lease: null,
    });
    expect(await store.get("run_done")).toMatchObject({ result: { answer: "sunny" }, metadata: { source: "fixture" } });
    expect((await store.events("run_waiting")).map((e) => e.to)).toEqual(["QUEUED", "RUNNING", "WAITING_APPROVAL"]);
    expect(await ledger.list("run_waiting", { status: "done" })).toMatchObject([{ tool: "get_deployment", externalOperationId: "op_deploy_1" }]);
    expect(await ledger.list("run_done")).toMatchObject([{ tool: "send_message", status: "pending" }]);
    db.close();
  });

  it("carries on with today's code: resume, claim, replay", async () => {
    const path = tempDbPath();
    copyFileSync(V1, path);
    const db = openDatabase(path);
    // The fixture's clock: its waiting run has a deadline one day after it was written.
    const store = SqliteRunStore.open(db, { clock: () => 1_764_000_010_000 });
    const ledger = SqliteToolLedger.open(db);
    const claimed = (await new Scheduler(store).claimRun("run_waiting", { workerId: "w", leaseMs: 1000, resume: { approved: true } }))!;
    expect(claimed.run).toMatchObject({ status: "RUNNING", attempts: 1, fencingToken: 2, resume: { approved: true } });
    expect((await ledger.begin({ runId: "run_waiting", toolCallId: "call_get", tool: "get_deployment", argsHash: "sha256:aa", idempotent: true })).kind).toBe(
      "replay-result",
    );
    expect((await ledger.begin({ runId: "run_done", toolCallId: "call_msg", tool: "send_message", argsHash: "sha256:cc", idempotent: false })).kind).toBe(
      "unknown-outcome",
    );
  });

  it("expires its waiting run once the deadline has passed", async () => {
    const path = tempDbPath();
    copyFileSync(V1, path);
    const store = SqliteRunStore.open(openDatabase(path), { clock: () => 1_764_000_000_000 + 2 * 86_400_000 });
    expect((await new Scheduler(store).sweepNow()).map((r) => [r.runId, r.status])).toEqual([["run_waiting", "EXPIRED"]]);
  });
});
