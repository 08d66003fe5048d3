import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { openDatabase } from "../../src/db/index.js";
import { T0, seedOpsRollback, tempDbPath } from "../trace/fixtures/seed.js";
import { openTraceStore } from "../../src/trace/index.js";

async function seededDb(): Promise<string> {
  const path = tempDbPath();
  const db = openDatabase(path);
  const store = openTraceStore(db, { otel: false });
  await seedOpsRollback(store, "run_01");
  await seedOpsRollback(store, "run_02");
  const weather = await store.recorder("run_03", { graph: "city_weather", startTime: T0 + 5000 });
  weather.recordToolCall({ tool: "get_weather", startTime: T0 + 5000, endTime: T0 + 5100, error: new Error("503") });
  weather.recordToolCall({ tool: "get_weather", startTime: T0 + 5000, endTime: T0 + 5050 });
  await weather.close();
  db.close();
  return path;
}

describe("agentrt stats", () => {
  it("prints tools by p95 with failure rates, graphs and recent runs", async () => {
    const { code, out, err } = await runCli(["stats", "--db", await seededDb()]);
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(out.split("\n")[0]).toBe("graph (all)  runs 3  model calls 4  5000→600 tok  cost $0.001110  retries 2");
    expect(out).toMatch(/query_logs +2 +0 +0\.0% +390ms +390ms +390ms +0/);
    expect(out).toMatch(/get_weather +2 +1 +50\.0% +50ms +100ms +100ms +0/);
    expect(out).toMatch(/ops_rollback +2 +4 +5000→600 tok +\$0\.001110 +\$0\.000555/);
    expect(out).toMatch(/run_03 +city_weather +running/);
  });

  it("--graph filters and --json prints exactly one JSON object", async () => {
    const { code, out } = await runCli(["stats", "--db", await seededDb(), "--graph", "city_weather", "--json"]);
    expect(code).toBe(0);
    expect(out.split("\n")).toHaveLength(1);
    const stats = JSON.parse(out);
    expect(stats).toMatchObject({ graph: "city_weather", runs: 1, tools: [{ tool: "get_weather", calls: 2, failures: 1, failureRate: 0.5 }] });
  });

  it("says so when there is nothing traced, and exits 2 on bad flags", async () => {
    const empty = tempDbPath();
    openDatabase(empty).close();
    const { code, out } = await runCli(["stats", "--db", empty]);
    expect(code).toBe(0);
    expect(out).toContain("no traced runs");
    expect((await runCli(["stats", "--db", empty, "--runs", "-1"])).code).toBe(2);
    expect((await runCli(["stats", "extra", "--db", empty])).code).toBe(2);
  });
});
