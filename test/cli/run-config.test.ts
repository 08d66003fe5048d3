// `agentrt run --configurable JSON --recursion-limit N`: the graph sees the keys, the limit stops a looping graph
// (FAILED RECURSION_LIMIT, exit 1), and the run's own keys or bad JSON are refused (exit 2, nothing stored).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

const configBefore = process.env.AGENTRT_CONFIG;
afterEach(() => {
  if (configBefore === undefined) delete process.env.AGENTRT_CONFIG;
  else process.env.AGENTRT_CONFIG = configBefore;
});

/** A db path and a langgraph.json with the fixture graph, made the CLI's config (AGENTRT_CONFIG). */
function project(): { db: string; config: string } {
  const dir = mkdtempSync(join(tmpdir(), "agentrt-cli-config-"));
  const config = join(dir, "langgraph.json");
  writeFileSync(config, JSON.stringify({ graphs: { configured: `${fileURLToPath(new URL("../server/fixtures/config-graph.ts", import.meta.url))}:graph` } }));
  process.env.AGENTRT_CONFIG = config;
  return { db: join(dir, "runs.db"), config };
}

describe("agentrt run --configurable / --recursion-limit", () => {
  it("passes the keys to the graph and stops it at the limit", async () => {
    const { db } = project();
    const common = ["--db", db, "--json"];
    const ok = await runCli(["run", "configured", "--input", '{"loops":1}', "--configurable", '{"tone":"terse"}', "--user", "ann", ...common]);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain("terse answer for ann");
    const stopped = await runCli(["run", "configured", "--input", '{"loops":5}', "--recursion-limit", "2", ...common]);
    expect(stopped.code).toBe(1);
    expect(JSON.parse(stopped.out)).toMatchObject({ status: "FAILED", error: { code: "RECURSION_LIMIT" } });
  });

  it("refuses the run's own keys, a non-object and bad JSON with exit 2, storing nothing", async () => {
    const { db } = project();
    const common = ["--db", db];
    for (const [flag, value, reason] of [
      ["--configurable", '{"user":"mallory"}', /configurable\.user is set by agentrt/],
      ["--configurable", "[1]", /--configurable must be a JSON object/],
      ["--configurable", "{", /--configurable is not valid JSON/],
      ["--recursion-limit", "0", /recursion limit must be an integer/],
      // The HTTP body's rules: 5,000 levels overflowed LangGraph's serializer (a RangeError with a stack, exit 1).
      ["--configurable", `{"deep":${"[".repeat(5000)}${"]".repeat(5000)}}`, /--configurable nests arrays or objects deeper than 500 levels/],
      ["--configurable", '{"tone":"a\\u0000b"}', /--configurable holds a NUL character/],
    ] as const) {
      const refused = await runCli(["run", "configured", "--input", '{"loops":1}', flag, value, ...common]);
      expect(refused.code).toBe(2);
      expect(refused.err).toMatch(reason);
      expect(refused.err.trim().split("\n")).toHaveLength(1);
    }
    for (const input of [`{"loops":${"[".repeat(5000)}${"]".repeat(5000)}}`, '{"loops":"\\ud800"}']) {
      const refused = await runCli(["run", "configured", "--input", input, ...common]);
      expect(refused.code).toBe(2);
      expect(refused.err).toMatch(/--input (nests arrays or objects deeper than 500 levels|holds a lone surrogate)/);
      expect(refused.err.trim().split("\n")).toHaveLength(1);
    }
    expect((JSON.parse((await runCli(["runs", ...common, "--json"])).out) as { runs: unknown[] }).runs).toEqual([]);
  });
});
