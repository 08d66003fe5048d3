// Commands that act on existing runs refuse a mistyped --db instead of creating a new empty database.
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

const COMMANDS: string[][] = [
  ["status", "run_x"],
  ["input", "run_x", "--text", "10086"],
  ["cancel", "run_x"],
  ["approve", "run_x", "--action", "a1", "--args-hash", "h"],
  ["trace", "run_x"],
  ["runs"],
  ["stats"],
  ["world"],
];

describe("a --db that does not exist", () => {
  it.each(COMMANDS)("%s: exits 2 with one line naming the path and creates no file", async (...args) => {
    const dir = mkdtempSync(join(tmpdir(), "agentrt-missing-db-"));
    const db = join(dir, "typo.db");
    const { code, err, errLines } = await runCli([...args, "--db", db]);
    expect(code).toBe(2);
    expect(errLines).toHaveLength(1);
    expect(err).toContain(`no database at ${db}`);
    expect(existsSync(db)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("run still creates it, and status then finds the run; :memory: keeps working", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrt-missing-db-"));
    const db = join(dir, "new.db");
    const run = await runCli(["run", "city_weather", "--message", "Weather in Paris?", "--queue", "--json", "--db", db]);
    expect(run.code).toBe(0);
    expect(existsSync(db)).toBe(true);
    const runId = (JSON.parse(run.out) as { run_id: string }).run_id;
    const status = await runCli(["status", runId, "--json", "--db", db]);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.out)).toMatchObject({ run_id: runId, status: "QUEUED" });
    const memory = await runCli(["runs", "--db", ":memory:"]);
    expect(memory.code).toBe(0);
  });
});
