// The real executable: help and a parser mistake as a user's shell sees them (stdout, stderr, exit status).
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const agentrt = (...args: string[]) => spawnSync(process.execPath, ["--import", "tsx", "src/cli/bin.ts", ...args], { cwd: root, encoding: "utf8" });

describe("bin/agentrt", () => {
  it("help run and run --help print the same command help", () => {
    const viaHelp = agentrt("help", "run");
    const viaFlag = agentrt("run", "--help");
    expect(viaHelp.status).toBe(0);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    expect(viaHelp.stdout).toContain("Examples:");
  }, 60_000);

  it("--max-steps -1 exits 2 with agentrt's own one-line reason", () => {
    const db = join(mkdtempSync(join(tmpdir(), "agentrt-bin-")), "runs.db");
    const result = agentrt("run", "city_weather", "--message", "hi", "--max-steps", "-1", "--db", db);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe('agentrt run: --max-steps must be an integer ≥ 0 (got "-1") [BAD_INPUT]\n');
  }, 60_000);
});
