// Every mistake on the command line gets agentrt's own one-line reason and exit 2, never node's parser
// text, and changes nothing: `--max-steps -1` is read like `--max-steps=-1`.
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

let db = "";
beforeEach(() => {
  db = join(mkdtempSync(join(tmpdir(), "agentrt-parse-")), "runs.db");
});

/** Phrases of node:util parseArgs' own messages. */
const NODE_WORDING = /Option '|Unknown option '|To specify|argument is ambiguous|Did you forget|<value>/;

async function refused(...args: string[]): Promise<string> {
  const { code, err, errLines, out } = await runCli([...args, "--db", db]);
  expect(code).toBe(2);
  expect(out).toBe("");
  expect(errLines).toHaveLength(1);
  expect(err).not.toMatch(NODE_WORDING);
  expect(err).toMatch(new RegExp(`^agentrt( ${args[0]})?: `));
  expect(existsSync(db)).toBe(false);
  return err;
}

describe("command-line mistakes", () => {
  it("a negative budget is refused the same way with or without '='", async () => {
    const spaced = await refused("run", "city_weather", "--message", "hi", "--max-steps", "-1");
    const joined = await refused("run", "city_weather", "--message", "hi", "--max-steps=-1");
    expect(spaced).toBe(joined);
    expect(spaced).toContain("--max-steps must be an integer ≥ 0");
  });

  it("a negative number is a value for any option that takes one", async () => {
    const err = await refused("run", "city_weather", "--message", "hi", "--wait-ttl-ms", "-5");
    expect(err).toBe(await refused("run", "city_weather", "--message", "hi", "--wait-ttl-ms=-5"));
    expect(err).toContain("--wait-ttl-ms");
    expect(await refused("runs", "--limit", "-3")).toContain("--limit must be at least 1");
  });

  it("an option where a value belongs says which option needs a value and how to pass a dash", async () => {
    const err = await refused("run", "city_weather", "--message", "hi", "--thread", "--json");
    expect(err).toContain("--thread needs a value");
    expect(err).toContain("--thread=");
  });

  it("a value missing at the end", async () => {
    expect(await refused("run", "city_weather", "--message")).toContain("--message needs a value");
    expect(await refused("run", "city_weather", "-m")).toContain("--message needs a value");
  });

  it("an unknown option names it and points at the command's help", async () => {
    const err = await refused("info", "--bogus");
    expect(err).toContain("unknown option --bogus");
    expect(err).toContain("agentrt info --help");
    expect(await refused("runs", "-x")).toContain("unknown option -x");
  });

  it("a switch given a value", async () => {
    expect(await refused("runs", "--json=yes")).toContain("--json takes no value");
  });

  it("an unknown command", async () => {
    const err = await refused("nope");
    expect(err).toContain('unknown command "nope"');
    expect(err).toContain("agentrt help");
  });
});

describe("enum values", () => {
  it("--status takes any case and lists what it accepts otherwise", async () => {
    const queued = await runCli(["run", "city_weather", "--message", "Weather in Paris", "--queue", "--json", "--db", db]);
    const runId = (JSON.parse(queued.out) as { run_id: string }).run_id;
    for (const status of ["queued", "Queued", "QUEUED"]) {
      const { code, out } = await runCli(["runs", "--status", status, "--json", "--db", db]);
      expect(code).toBe(0);
      expect((JSON.parse(out) as { runs: { run_id: string }[] }).runs.map((r) => r.run_id)).toEqual([runId]);
    }
    const none = await runCli(["runs", "--status", "waiting_approval", "--json", "--db", db]);
    expect(none.code).toBe(0);
    expect(JSON.parse(none.out)).toEqual({ runs: [] });
    const bad = await runCli(["runs", "--status", "done", "--db", db]);
    expect(bad.code).toBe(2);
    expect(bad.errLines).toHaveLength(1);
    expect(bad.err).toContain("--status must be one of QUEUED,");
  });
});
