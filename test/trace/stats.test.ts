// The stats themselves are checked on every backend in conformance/trace-store.ts.
import { describe, expect, it } from "vitest";
import { percentile } from "../../src/trace/index.js";

describe("percentile", () => {
  it("uses the nearest rank", () => {
    expect(percentile([], 50)).toBe(0);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([10, 20, 30, 40], 50)).toBe(20);
    expect(percentile([10, 20, 30, 40], 95)).toBe(40);
  });
});
