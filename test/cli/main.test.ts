import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

describe("agentrt CLI", () => {
  it("prints help with exit 0", async () => {
    const { code, out } = await runCli(["--help"]);
    expect(code).toBe(0);
    expect(out).toContain("Usage: agentrt <command>");
  });

  it("exits 2 with a one-line reason for an unknown command", async () => {
    const { code, err } = await runCli(["nope"]);
    expect(code).toBe(2);
    expect(err.split("\n")).toHaveLength(1);
  });

  it("exits 2 for an unknown flag", async () => {
    const { code, err } = await runCli(["info", "--bogus"]);
    expect(code).toBe(2);
    expect(err).toMatch(/bogus/);
  });

  it("says how to pass a value starting with a dash, in one line", async () => {
    const { code, err, errLines } = await runCli(["run", "city_weather", "--message", "--hi"]);
    expect(code).toBe(2);
    expect(errLines).toHaveLength(1);
    expect(err).toMatch(/--message needs a value \(got the option --hi; to pass a value that starts with a dash, write --message=--hi\)/);
  });

  it("info --json prints exactly one JSON object", async () => {
    const db = join(mkdtempSync(join(tmpdir(), "agentrt-cli-")), "x.db");
    const { code, out } = await runCli(["info", "--db", db, "--json"]);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ db, exists: false, modules: {} });
  });
});
