import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { openDatabase } from "../../src/db/index.js";
import { openTraceStore } from "../../src/trace/index.js";
import { T0, seedOpsRollback, tempDbPath } from "../trace/fixtures/seed.js";

async function seededDb(): Promise<string> {
  const path = tempDbPath();
  const db = openDatabase(path);
  await seedOpsRollback(openTraceStore(db, { otel: false }));
  db.close();
  return path;
}

describe("agentrt trace", () => {
  it("prints a summary line and the span tree with timeline bars", async () => {
    const db = await seededDb();
    const { code, out, err } = await runCli(["trace", "run_01", "--db", db, "--width", "120"]);
    expect(err).toBe("");
    expect(code).toBe(0);
    const lines = out.split("\n");
    expect(lines[0]).toMatch(/^run run_01 {2}graph ops_rollback {2}status SUCCEEDED {2}1\.00s {2}2500→300 tok {2}\$0\.000555 {2}\(13 spans\)$/);
    expect(lines[1]).toMatch(/^invoke_agent run_01 +ok +1\.00s/);
    expect(out).toContain("├── model_turn 1");
    expect(out).toContain("│   ├── execute_tool get_deployment");
    expect(out).toContain("├── approval_wait rollback_deployment");
    expect(out).toContain("├── execute_tool rollback_deployment (attempt 2)");
    expect(lines.slice(1).every((l) => l.length === lines[1]!.length && l.endsWith("|"))).toBe(true);
  });

  it("--json prints exactly one JSON object with the raw spans", async () => {
    const db = await seededDb();
    const { code, out } = await runCli(["trace", "run_01", "--db", db, "--json"]);
    expect(code).toBe(0);
    expect(out.split("\n")).toHaveLength(1);
    const parsed = JSON.parse(out) as { run_id: string; spans: Record<string, unknown>[] };
    expect(parsed.run_id).toBe("run_01");
    expect(parsed.spans).toHaveLength(13);
    expect(parsed.spans[0]).toMatchObject({ kind: "invoke_agent", parent_id: null, run_id: "run_01", status: "ok", duration_ms: 1000 });
    expect(parsed.spans.find((s) => s.tool === "query_logs")).toMatchObject({ args: { service: "payments", token: "[redacted]" }, result_size: 800, attempt: 1 });
  });

  it("draws a waiting run up to now, its wait still running", async () => {
    const path = tempDbPath();
    const db = openDatabase(path);
    const rec = await openTraceStore(db, { otel: false }).recorder("run_wait", { graph: "ops_rollback", startTime: T0 });
    rec.recordStateChange("RUNNING", "WAITING_APPROVAL", { at: T0 + 5, waitName: "approval_wait rollback_deployment" });
    await rec.close();
    db.close();
    const { code, out } = await runCli(["trace", "run_wait", "--db", path]);
    expect(code).toBe(0);
    expect(out.split("\n")[0]).toContain("status WAITING_APPROVAL  running");
    expect(out).toMatch(/approval_wait rollback_deployment +running +\S+\+/);
  });

  it("exits 2 with a one-line reason for an unknown run id", async () => {
    const db = await seededDb();
    const { code, out, err } = await runCli(["trace", "run_99", "--db", db]);
    expect(code).toBe(2);
    expect(out).toBe("");
    expect(err.split("\n")).toHaveLength(1);
    expect(err).toMatch(/run_99.*\[UNKNOWN_RUN\]/);
  });

  it("exits 2 for a missing run id, a bad width and a missing database", async () => {
    const db = await seededDb();
    expect((await runCli(["trace", "--db", db])).code).toBe(2);
    expect((await runCli(["trace", "run_01", "--db", db, "--width", "wide"])).code).toBe(2);
    const missing = await runCli(["trace", "run_01", "--db", `${db}.nope`]);
    expect(missing.code).toBe(2);
    expect(missing.err.split("\n")).toHaveLength(1);
  });
});
