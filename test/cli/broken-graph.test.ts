// A graph listed in langgraph.json whose module is missing or throws on import: `agentrt run` refuses it in one
// line (exit 2, GRAPH_LOAD_FAILED) and stores nothing, as for an unknown graph id.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Runtime } from "../../src/runtime/index.js";
import { runCli } from "../helpers/cli.js";
import { runtimeInternals } from "../../src/runtime/internals.js";

let dir = "";
const before = process.env.AGENTRT_CONFIG;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agentrt-broken-graph-"));
  writeFileSync(join(dir, "throws.mjs"), 'throw new Error("OPS_TOKEN is not set");\n');
  writeFileSync(join(dir, "langgraph.json"), JSON.stringify({ graphs: { missing: "./nowhere.mjs:graph", throws: "./throws.mjs:graph" } }));
  process.env.AGENTRT_CONFIG = join(dir, "langgraph.json");
});
afterEach(() => {
  if (before === undefined) delete process.env.AGENTRT_CONFIG;
  else process.env.AGENTRT_CONFIG = before;
});

describe("agentrt run on a graph that does not load", () => {
  it.each([
    ["missing", /graph missing: cannot load .*nowhere\.mjs: no such file \[GRAPH_LOAD_FAILED\]/],
    ["throws", /graph throws: cannot load .*throws\.mjs: OPS_TOKEN is not set \[GRAPH_LOAD_FAILED\]/],
  ])("refuses %s with exit 2 and stores no run", async (graph, reason) => {
    const db = join(dir, "runs.db");
    const result = await runCli(["run", graph, "--message", "hi", "--db", db, "--json"]);
    expect(result.code).toBe(2);
    expect(result.out).toBe("");
    expect(result.err.trim().split("\n")).toHaveLength(1);
    expect(result.err).toMatch(reason);
    const runtime = Runtime.open({ db, config: join(dir, "langgraph.json") });
    try {
      expect(await runtimeInternals(runtime).runs.list()).toEqual([]);
    } finally {
      await runtime.close();
    }
  });
});
