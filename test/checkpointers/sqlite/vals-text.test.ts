/** Cutting a checkpoint row's `vals` (schema v3) into its elements' JSON texts without parsing it. */
import { describe, expect, it } from "vitest";
import { valsElements } from "../../../checkpointers/sqlite/vals-text.js";

const asVals = (values: unknown[]) => `[${values.map((value) => JSON.stringify(value)).join(",")}]`;

describe("valsElements", () => {
  it("gives back each element's JSON text as JSON.stringify wrote it", () => {
    const values = [
      "plain",
      'quotes " and \\ backslashes \\" and a trailing backslash \\',
      "brackets ] } [ { and commas , inside a string",
      { nested: [1, [2, { three: "]" }]], empty: {}, list: [] },
      [],
      {},
      null,
      0,
      -1.5e-7,
      true,
      "héllo 世界 🎉 \ud800",
      '{"looks":"like json"}',
      "",
    ];
    const texts = valsElements(asVals(values));
    expect(texts).toEqual(values.map((value) => JSON.stringify(value)));
    expect(texts.map((text) => JSON.parse(text) as unknown)).toEqual(values);
  });

  it("reads null as no elements and one element alone", () => {
    expect(valsElements(null)).toEqual([]);
    expect(valsElements("[]")).toEqual([]);
    expect(valsElements('["only"]')).toEqual(['"only"']);
  });

  it("falls back to parsing an array not written as a put writes it", () => {
    expect(valsElements(' [1, {"a": 2}] ')).toEqual(["1", '{"a":2}']);
    expect(() => valsElements("[1, 2")).toThrow(SyntaxError);
  });
});
