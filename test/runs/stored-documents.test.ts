import { describe, expect, it } from "vitest";
import { StorageError } from "../../src/errors.js";
import { Scheduler } from "../../src/runs/index.js";
import { freshStore, thrown } from "./helpers.js";

const PENDING = [{ action_id: "act_1", tool: "rollback_deployment", args: { service: "payments" }, args_hash: "h1" }];

function raw(db: ReturnType<typeof freshStore>["db"], runId: string): Record<string, string | null> {
  return db.prepare("SELECT budget_json, config_json, pending_json, resume_json FROM runs WHERE run_id = ?").get(runId) as Record<string, string | null>;
}

describe("the JSON documents of a run row", () => {
  it("are written with their format version and read back as given", async () => {
    const { db, store } = freshStore();
    await store.create({ runId: "r1", graphId: "g", budget: { maxSteps: 5 }, config: { configurable: { model: "m" }, recursionLimit: 40 } });
    const lease = (await new Scheduler(store).claimRun("r1", { workerId: "w", leaseMs: 1000 }))!.lease;
    await lease.transition("WAITING_APPROVAL", { pending: PENDING });
    expect(JSON.parse(raw(db, "r1").budget_json!)).toEqual({ $v: 1, maxSteps: 5 });
    expect(JSON.parse(raw(db, "r1").config_json!)).toEqual({ $v: 1, configurable: { model: "m" }, recursionLimit: 40 });
    expect(JSON.parse(raw(db, "r1").pending_json!)).toEqual({ $v: 1, value: PENDING });
    const resumed = await store.resume("r1", { resume: [{ action_id: "act_1", decision: "approve" }] });
    expect(JSON.parse(raw(db, "r1").resume_json!)).toEqual({ $v: 1, value: [{ action_id: "act_1", decision: "approve" }] });
    expect(resumed).toMatchObject({
      budget: { maxSteps: 5 },
      config: { configurable: { model: "m" }, recursionLimit: 40 },
      resume: [{ action_id: "act_1", decision: "approve" }],
    });
  });

  it("a config that says the run is streamed across processes is version 2; others stay version 1", async () => {
    const { db, store } = freshStore();
    const created = await store.create({ runId: "r3", graphId: "g", config: { recursionLimit: 40, stream: { modes: ["updates"] } } });
    expect(JSON.parse(raw(db, "r3").config_json!)).toEqual({ $v: 2, recursionLimit: 40, stream: { modes: ["updates"] } });
    expect(created.config).toEqual({ recursionLimit: 40, stream: { modes: ["updates"] } });
    expect((await store.get("r3")).config).toEqual({ recursionLimit: 40, stream: { modes: ["updates"] } });
  });

  it("a config that names the checkpoint a forked run starts from is version 3, read back by the zod schema too", async () => {
    const { db, store } = freshStore();
    const config = { recursionLimit: 40, stream: { modes: ["updates"] }, fromCheckpoint: "1f0-cp" };
    const created = await store.create({ runId: "r4", graphId: "g", config });
    expect(JSON.parse(raw(db, "r4").config_json!)).toEqual({ $v: 3, ...config });
    expect(created.config).toEqual(config);
    expect((await store.get("r4")).config).toEqual(config);
    // A key the fast read does not know goes to the version's schema, which refuses it.
    db.prepare("UPDATE runs SET config_json = ? WHERE run_id = 'r4'").run('{"$v":3,"fromCheckpoint":"1f0-cp","extra":1}');
    expect(await thrown(() => store.get("r4"))).toMatchObject({ code: "DB_CORRUPT" });
  });

  it("written before versions existed (version 0) are read by their own schema", async () => {
    const { db, store } = freshStore();
    await store.create({ runId: "r0", graphId: "g" });
    db.prepare("UPDATE runs SET status = 'WAITING_APPROVAL', budget_json = ?, config_json = ?, pending_json = ?, resume_json = ? WHERE run_id = 'r0'").run(
      '{"maxSteps":20}', '{"recursionLimit":60}', JSON.stringify(PENDING), '{"kind":"input","interrupt_id":"i1","value":"yes","by":"ann"}',
    );
    expect(await store.get("r0")).toMatchObject({
      budget: { maxSteps: 20 },
      config: { recursionLimit: 60 },
      pending: PENDING,
      resume: { kind: "input", interrupt_id: "i1", value: "yes", by: "ann" },
    });
  });

  it("of a newer version are refused as DB_SCHEMA_TOO_NEW naming the column; a malformed one as DB_CORRUPT", async () => {
    const { db, store } = freshStore();
    await store.create({ runId: "r2", graphId: "g" });
    db.prepare("UPDATE runs SET pending_json = ? WHERE run_id = 'r2'").run('{"$v":2,"items":[]}');
    const tooNew = await thrown(() => store.get("r2"));
    expect(tooNew).toBeInstanceOf(StorageError);
    expect(tooNew).toMatchObject({ code: "DB_SCHEMA_TOO_NEW", details: { column: "pending_json", version: 2, known: 1 } });
    db.prepare("UPDATE runs SET pending_json = NULL, budget_json = ? WHERE run_id = 'r2'").run('{"$v":1,"maxSteps":-1}');
    const corrupt = await thrown(() => store.get("r2"));
    expect(corrupt).toMatchObject({ code: "DB_CORRUPT", details: { column: "budget_json", version: 1 } });
    expect((corrupt as Error).message).toContain("budget_json");
  });
});
