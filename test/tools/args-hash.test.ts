import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { argsHash, canonicalJson } from "agentrt/tools";

describe("argsHash", () => {
  it("is sha256 of RFC 8785 canonical JSON of { tool, args }, independent of key order", () => {
    expect(canonicalJson({ b: 1, a: [2, { d: 1, c: 2 }] })).toBe('{"a":[2,{"c":2,"d":1}],"b":1}');
    const expected = createHash("sha256").update('{"args":{"env":"prod","service":"payments"},"tool":"rollback"}').digest("hex");
    expect(argsHash("rollback", { service: "payments", env: "prod" })).toBe(expected);
    expect(argsHash("rollback", { env: "prod", service: "payments" })).toBe(expected);
    expect(argsHash("rollback", { env: "prod", service: "orders" })).not.toBe(expected);
  });
});
