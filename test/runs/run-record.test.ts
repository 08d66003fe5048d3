import { describe, expect, it } from "vitest";
import { StorageError } from "../../src/errors.js";
import { rowToEvent, rowToRun } from "../../src/runs/run-record.js";
import { freshStore, thrown } from "./helpers.js";

describe("reading a run row back", () => {
  it("gives the record as written, old optional columns absent reading as null", async () => {
    const { db, store } = freshStore();
    const created = await store.create({ runId: "r1", graphId: "g", input: { q: 1 }, metadata: { team: "a" }, budget: { maxSteps: 3, maxCostUsd: 0.5 } });
    expect(await store.get("r1")).toEqual(created);
    const row = db.prepare("SELECT * FROM runs WHERE run_id = 'r1'").get() as Record<string, unknown>;
    const { wait_ttl_ms: _ttl, wait_expires_at: _expires, config_json: _config, ...older } = row;
    expect(rowToRun(older)).toMatchObject({ waitTtlMs: null, waitExpiresAt: null, config: null, input: { q: 1 }, metadata: { team: "a" }, budget: { maxSteps: 3, maxCostUsd: 0.5 } });
  });

  it("refuses a column of the wrong type as DB_CORRUPT naming the row and the column", async () => {
    const { db, store } = freshStore();
    await store.create({ runId: "r2", graphId: "g" });
    // SQLite keeps text that does not look like a number as text, even in an INTEGER column.
    db.prepare("UPDATE runs SET fencing_token = 'seven' WHERE run_id = 'r2'").run();
    const error = await thrown(() => store.get("r2"));
    expect(error).toBeInstanceOf(StorageError);
    expect(error).toMatchObject({ code: "DB_CORRUPT", details: { table: "runs", column: "fencing_token", id: "r2" } });
    expect((error as Error).message).toContain("fencing_token");
  });

  it("refuses a foreign row (a missing column, an unknown status, unparsable JSON, not an object) as DB_CORRUPT", () => {
    const { db } = freshStore();
    expect(() => rowToRun({ run_id: "x" })).toThrow(expect.objectContaining({ code: "DB_CORRUPT", details: expect.objectContaining({ table: "runs", id: "x" }) }));
    expect(() => rowToRun(undefined)).toThrow(expect.objectContaining({ code: "DB_CORRUPT" }));
    const good = { ...validRow(db) };
    expect(() => rowToRun({ ...good, status: "PAUSED" })).toThrow(expect.objectContaining({ code: "DB_CORRUPT", details: expect.objectContaining({ column: "status" }) }));
    expect(() => rowToRun({ ...good, input_json: "{not json" })).toThrow(expect.objectContaining({ code: "DB_CORRUPT", details: expect.objectContaining({ column: "input_json" }) }));
    expect(() => rowToRun({ ...good, cost_usd: Number.NaN })).toThrow(expect.objectContaining({ code: "DB_CORRUPT", details: expect.objectContaining({ column: "cost_usd" }) }));
    expect(() => rowToEvent({ event_id: 1, run_id: "x", from_status: null, to_status: "NOPE", at: 1, actor: null, fencing_token: null, error_code: null, reason: null }))
      .toThrow(expect.objectContaining({ code: "DB_CORRUPT", details: expect.objectContaining({ table: "run_events", column: "to_status", id: 1 }) }));
  });

  it("still reads documents a fast read cannot vouch for by their version's schema", async () => {
    const { db, store } = freshStore();
    await store.create({ runId: "r3", graphId: "g" });
    // An unknown key in today's budget version is refused by the schema, as before.
    db.prepare("UPDATE runs SET budget_json = ? WHERE run_id = 'r3'").run('{"$v":1,"maxSteps":2,"maxHats":1}');
    expect(await thrown(() => store.get("r3"))).toMatchObject({ code: "DB_CORRUPT", details: { column: "budget_json", version: 1 } });
    db.prepare("UPDATE runs SET budget_json = ?, config_json = ? WHERE run_id = 'r3'").run('{"$v":1,"maxSteps":2}', '{"$v":1,"recursionLimit":0}');
    expect(await thrown(() => store.get("r3"))).toMatchObject({ code: "DB_CORRUPT", details: { column: "config_json", version: 1 } });
    db.prepare("UPDATE runs SET config_json = ? WHERE run_id = 'r3'").run('{"$v":2,"configurable":{"m":"x"},"stream":{"modes":["values"]}}');
    expect((await store.get("r3")).config).toEqual({ configurable: { m: "x" }, stream: { modes: ["values"] } });
  });
});

function validRow(db: ReturnType<typeof freshStore>["db"]): Record<string, unknown> {
  db.prepare(
    "INSERT INTO runs (run_id, thread_id, graph_id, user_id, status, max_attempts, available_at, created_at, updated_at) VALUES ('v', 't', 'g', 'u', 'QUEUED', 3, 0, 0, 0)",
  ).run();
  return db.prepare("SELECT * FROM runs WHERE run_id = 'v'").get() as Record<string, unknown>;
}
