// Span ids' random hex: the pooled bytes give ids of the asked length, all different, across pool refills.
import { describe, expect, it } from "vitest";
import { randomHex } from "../../src/trace/random-hex.js";

describe("randomHex", () => {
  it("gives 2 × n hex characters per call, never the same id twice across many pool refills", () => {
    const seen = new Set<string>();
    // 3,000 × 8 bytes: several 4 KiB pools, refilled between calls that do not divide the pool evenly.
    for (let i = 0; i < 3000; i++) {
      const id = randomHex(i % 2 === 0 ? 8 : 6);
      expect(id).toMatch(i % 2 === 0 ? /^[0-9a-f]{16}$/ : /^[0-9a-f]{12}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(3000);
  });
});
