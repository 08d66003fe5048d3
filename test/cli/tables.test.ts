// `runs` and `world` print tables a person can read: a header and aligned columns; --json stays as it was.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

let db = "";
const cli = (...args: string[]) => runCli([...args, "--db", db]);

/** Where each header word starts, so every row can be checked against it. */
function columnStarts(header: string): number[] {
  return [...header.matchAll(/\S+/g)].map((m) => m.index);
}

beforeAll(async () => {
  db = join(mkdtempSync(join(tmpdir(), "agentrt-tables-")), "runs.db");
  await cli("run", "ops_rollback", "--message", "Why did the payments deploy fail? Roll back if needed.", "--user", "alice");
  await cli("run", "city_weather", "--message", "Weather in Paris", "--queue", "--user", "bob-the-builder");
}, 120_000);

describe("agentrt runs", () => {
  it("prints a header and columns that line up", async () => {
    const { code, outLines } = await cli("runs");
    expect(code).toBe(0);
    const [header, ...rows] = outLines;
    expect(header).toMatch(/^RUN +STATUS +GRAPH +USER +CREATED/);
    expect(rows).toHaveLength(2);
    const starts = columnStarts(header!);
    for (const row of rows) {
      for (const start of starts.slice(1)) {
        expect(row[start - 1], `a column boundary at ${start} in "${row}"`).toBe(" ");
        expect(row[start], `a value at ${start} in "${row}"`).not.toBe(" ");
      }
    }
    expect(rows[0]).toMatch(/QUEUED +city_weather +bob-the-builder/);
    expect(rows[1]).toMatch(/WAITING_APPROVAL +ops_rollback +alice/);
  });

  it("--json is unchanged", async () => {
    const { out } = await cli("runs", "--json");
    const runs = (JSON.parse(out) as { runs: Record<string, unknown>[] }).runs;
    expect(runs).toHaveLength(2);
    expect(Object.keys(runs[0]!)).toEqual(expect.arrayContaining(["run_id", "thread_id", "graph", "status", "pending", "result", "created_at"]));
  });
});

describe("agentrt world", () => {
  it("prints the calls and each system's state as tables, no JSON blobs", async () => {
    const { code, outLines, out } = await cli("world");
    expect(code).toBe(0);
    expect(out).not.toMatch(/[{}]/);
    const callsHeader = outLines.findIndex((l) => /^\s*TOOL +PERFORMED +FAILED/.test(l));
    expect(callsHeader).toBeGreaterThanOrEqual(0);
    expect(outLines.slice(callsHeader + 1).find((l) => /^\s*get_deployment +1 +0$/.test(l))).toBeDefined();
    // The deploy system: one row per service, its fields as columns.
    const deploy = outLines.findIndex((l) => /^deploy\b/.test(l));
    expect(deploy).toBeGreaterThan(callsHeader);
    expect(outLines[deploy + 1]).toMatch(/^\s*KEY +SERVICE +CURRENT_REVISION +STATUS/);
    expect(outLines.find((l) => /^\s*service:payments +payments +rev-185 +failed/.test(l))).toBeDefined();
  });

  it("--json is unchanged", async () => {
    const { out } = await cli("world", "--json");
    expect(Object.keys(JSON.parse(out) as object)).toEqual(["calls", "failures", "systems"]);
  });
});
