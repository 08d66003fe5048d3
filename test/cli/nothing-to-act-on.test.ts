// A command with nothing to act on exits 2 with a reason instead of doing nothing with exit 0.
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

const previous = process.env.AGENTRT_CONFIG;
afterEach(() => {
  if (previous === undefined) delete process.env.AGENTRT_CONFIG;
  else process.env.AGENTRT_CONFIG = previous;
});

describe("nothing to act on", () => {
  it("worker --once on a file that does not exist: exit 2, nothing created", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrt-nothing-"));
    const { code, errLines } = await runCli(["worker", "--once", "--db", join(dir, "typo.db")]);
    expect(code).toBe(2);
    expect(errLines).toHaveLength(1);
    expect(errLines[0]).toContain(`no database at ${join(dir, "typo.db")}`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("worker outside a project (no langgraph.json): exit 2, nothing created", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrt-nothing-"));
    process.env.AGENTRT_CONFIG = join(dir, "langgraph.json");
    const { code, errLines } = await runCli(["worker", "--once", "--db", join(dir, "runs.db")]);
    expect(code).toBe(2);
    expect(errLines).toHaveLength(1);
    expect(errLines[0]).toMatch(/no langgraph\.json/);
    expect(existsSync(join(dir, "runs.db"))).toBe(false);
  });
});
