// examples/dag.ts: a defineDag graph whose two independent nodes run together, saved to SQLite.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exampleDir, runExample } from "./run-example.js";

describe("examples/dag.ts", () => {
  it("draws its DAG, starts both lookups before either is done, and plans from both", async () => {
    const run = await runExample("examples/dag.ts", [], { AGENTRT_DB: join(exampleDir(), "agentrt.db") });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("weather --> plan;");
    expect(run.stdout).toContain("hotels --> plan;");
    const events = run.stdout.split("\n").filter((line) => / (started|done)$/.test(line));
    expect(events.slice(0, 2).sort()).toEqual(["hotels started", "weather started"]);
    expect(events.slice(2).sort()).toEqual(["hotels done", "weather done"]);
    expect(run.stdout).toMatch(/^plan: sunny in Lisbon; stay at Lisbon Grand$/m);
  }, 180_000);
});
