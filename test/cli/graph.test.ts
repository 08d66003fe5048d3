// `agentrt graph X` draws the graph in the terminal; `--mermaid` prints Mermaid; outside a project it says why.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

const previous = process.env.AGENTRT_CONFIG;
afterEach(() => {
  if (previous === undefined) delete process.env.AGENTRT_CONFIG;
  else process.env.AGENTRT_CONFIG = previous;
});

describe("agentrt graph", () => {
  it("draws a graph's nodes in boxes with arrows by default", async () => {
    const { code, out } = await runCli(["graph", "ops_rollback"]);
    expect(code).toBe(0);
    expect(out).not.toMatch(/graph TD|flowchart|-->|classDef/);
    for (const node of ["__start__", "model", "tools", "__end__"]) expect(out).toMatch(new RegExp(`│ +${node} +│`));
    // __start__ → model, model → tools, model → __end__, tools → model: four arrow heads.
    expect(out.match(/▼/g)).toHaveLength(4);
    expect(out).toContain("conditional");
  });

  it("--mermaid prints the Mermaid text, and --json keeps { graph, mermaid }", async () => {
    const mermaid = await runCli(["graph", "ops_rollback", "--mermaid"]);
    expect(mermaid.code).toBe(0);
    expect(mermaid.out).toMatch(/graph TD/);
    const json = await runCli(["graph", "ops_rollback", "--json"]);
    expect(JSON.parse(json.out)).toEqual({ graph: "ops_rollback", mermaid: mermaid.out });
  });

  it("lists the graphs without an id", async () => {
    const { code, outLines } = await runCli(["graph"]);
    expect(code).toBe(0);
    expect(outLines).toContain("ops_rollback");
  });

  it("outside a project (no langgraph.json) exits 2 with the reason, with or without an id", async () => {
    process.env.AGENTRT_CONFIG = join(mkdtempSync(join(tmpdir(), "agentrt-noproject-")), "langgraph.json");
    for (const args of [["graph"], ["graph", "--json"], ["graph", "ops_rollback"]]) {
      const { code, errLines, out } = await runCli(args);
      expect(code).toBe(2);
      expect(out).toBe("");
      expect(errLines).toHaveLength(1);
      expect(errLines[0]).toMatch(/no langgraph\.json/);
    }
  });

  it("a langgraph.json that lists no graphs exits 2 too", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrt-nographs-"));
    writeFileSync(join(dir, "langgraph.json"), JSON.stringify({ graphs: {} }));
    process.env.AGENTRT_CONFIG = join(dir, "langgraph.json");
    const { code, err } = await runCli(["graph"]);
    expect(code).toBe(2);
    expect(err).toMatch(/lists no graphs/);
  });
});
