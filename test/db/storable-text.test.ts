// Text both backends store alike: no NUL, no lone surrogate, in any string or key of a JSON value.
import { describe, expect, it } from "vitest";
import { unstorableInJson, unstorableInText } from "../../src/db/storable-text.js";

describe("storable text", () => {
  it("finds a NUL or a lone surrogate, and passes pairs, emoji and ordinary text", () => {
    expect(unstorableInText("plain ✓ 😀")).toBeUndefined();
    expect(unstorableInText("a\u0000b")).toBe("a NUL character");
    expect(unstorableInText("\ud800")).toMatch(/lone surrogate/);
    expect(unstorableInText("x\udc00")).toMatch(/lone surrogate/);
    expect(unstorableInText("\ud83d\ude00\ud83d")).toMatch(/lone surrogate/);
  });

  it("looks at every key and value of a JSON value, deep ones included, without recursion", () => {
    expect(unstorableInJson({ a: [1, { b: "ok" }], c: null })).toBeUndefined();
    expect(unstorableInJson({ a: [1, { b: "o\u0000k" }] })).toBe("a NUL character");
    expect(unstorableInJson({ "k\u0000": 1 })).toBe("a NUL character in a key");
    let deep: unknown = "\ud800";
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    expect(unstorableInJson(deep)).toMatch(/lone surrogate/);
  });
});
