import { describe, expect, it } from "vitest";
import { parseDataset } from "../../src/eval/case-schema.js";

const good = JSON.stringify({ id: "a", input: { message: "hi" }, expect: { status: "SUCCEEDED" } });

describe("parseDataset", () => {
  it("reads one case per line, skipping blank lines and keeping the line number and text", () => {
    const text = `${good}\n\n${JSON.stringify({ id: "b", input: { input: { x: 1 } }, env: { AGENTRT_SIM_FAULTS: "get_order:1" }, approvals: [{ tool: "t", decision: "reject" }], expect: {} })}\n`;
    const cases = parseDataset(text, "d.jsonl");
    expect(cases.map((c) => [c.case.id, c.line])).toEqual([["a", 1], ["b", 3]]);
    expect(cases[0]!.text).toBe(good);
    expect(cases[1]!.case.input).toEqual({ input: { x: 1 } });
  });

  it.each([
    ["{not json", /^d\.jsonl:2: not valid JSON/],
    [JSON.stringify({ id: "x", input: { message: "m" }, expect: { status: "DONE" } }), /^d\.jsonl:2: not a valid case at expect\.status: /],
    [JSON.stringify({ id: "x", input: { message: "m" }, expect: {}, extra: 1 }), /^d\.jsonl:2: not a valid case: /],
    [JSON.stringify({ id: "x", input: { text: "m" }, expect: {} }), /^d\.jsonl:2: not a valid case at input: /],
    [JSON.stringify({ id: "x", input: { message: "m" }, env: { AGENTRT_SIM_FAULTS: "get_order" }, expect: {} }), /^d\.jsonl:2: AGENTRT_SIM_FAULTS entries look like tool:count/],
    [JSON.stringify({ id: "x", input: { message: "m" }, expect: { answer_matches: "(" } }), /^d\.jsonl:2: Invalid regular expression/],
    [JSON.stringify({ id: "a", input: { message: "m" }, expect: {} }), /^d\.jsonl:2: duplicate case id "a"$/],
  ])("names the bad line: %s", (line, message) => {
    expect(() => parseDataset(`${good}\n${line}\n`, "d.jsonl")).toThrow(message);
  });

  it("refuses an empty dataset", () => {
    expect(() => parseDataset("\n\n", "d.jsonl")).toThrow("d.jsonl: no cases");
  });
});
