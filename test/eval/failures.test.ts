import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDataset } from "../../src/eval/case-schema.js";
import { appendFailures, defaultFailuresPath } from "../../src/eval/failures.js";
import { buildReport, type CaseReport } from "../../src/eval/report.js";

const lines = ["a", "b", "c"].map((id) => JSON.stringify({ id, input: { message: id }, expect: {} }));
const cases = parseDataset(lines.join("\n"), "d.jsonl");
const row = (id: string, pass: boolean): CaseReport => ({
  id, line: 1, pass, run_id: null, status: "SUCCEEDED", answer: null, error: null, steps: 0, model_calls: 0, tokens: 0, cost_usd: 0,
  latency_ms: 1, tools: [], world_calls: {}, notes: [], evaluators: [],
});
const report = buildReport({ graph: "g", dataset: "d", startedAt: new Date(0), cases: [row("a", true), row("b", false), row("c", false)], minPass: 1 });

describe("appendFailures", () => {
  it("appends failing cases verbatim and does not add a line twice", () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentrt-eval-f-")), "sub", "failures.jsonl");
    expect(appendFailures(path, cases, report)).toBe(2);
    expect(readFileSync(path, "utf8")).toBe(`${lines[1]}\n${lines[2]}\n`);
    expect(appendFailures(path, cases, report)).toBe(0);
    expect(parseDataset(readFileSync(path, "utf8"), "failures").map((c) => c.case.id)).toEqual(["b", "c"]);
  });

  it("keeps earlier content, adding a newline when the file lacks one", () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentrt-eval-f-")), "failures.jsonl");
    writeFileSync(path, lines[0]!);
    appendFailures(path, cases, report);
    expect(readFileSync(path, "utf8").split("\n")).toEqual([lines[0], lines[1], lines[2], ""]);
  });

  it("defaults next to --out", () => {
    expect(defaultFailuresPath("out/report.json")).toBe("out/report.failures.jsonl");
    expect(defaultFailuresPath(undefined)).toBe("./eval-failures.jsonl");
  });
});
