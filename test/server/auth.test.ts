// The AGENTRT_API_KEY format: bare keys and user[+role…]:key entries need the same 8 characters, and an entry whose
// meaning could be misread is refused at start with one line that never shows the key.
import { describe, expect, it } from "vitest";
import { authenticate, parseApiKeys } from "../../src/server/auth.js";
import { startServer } from "../../src/server/server.js";
import { startTestServer } from "./harness.js";

const callerOf = (value: string, presented: string) => authenticate(parseApiKeys(value), { apiKey: presented });

describe("AGENTRT_API_KEY", () => {
  it("reads a bare key as caller api and user[+roles]:key entries as named callers", () => {
    expect(callerOf("0123456789abcdef", "0123456789abcdef")).toEqual({ id: "api", roles: [], authenticated: true });
    const several = "alice:alice-key-1, bob+ops+admin:bob-key-22";
    expect(callerOf(several, "alice-key-1")).toEqual({ id: "alice", roles: [], authenticated: true });
    expect(callerOf(several, "bob-key-22")).toEqual({ id: "bob", roles: ["ops", "admin"], authenticated: true });
    expect(callerOf(several, "alice:alice-key-1")).toBeUndefined();
    expect(parseApiKeys("")).toEqual([]);
    expect(parseApiKeys(undefined)).toEqual([]);
  });

  it("needs 8 characters for a bare key as for a named one", () => {
    expect(() => parseApiKeys("a")).toThrow(/AGENTRT_API_KEY: the key of entry 1 is shorter than 8 characters/);
    expect(() => parseApiKeys("1234567")).toThrow(/shorter than 8/);
    expect(() => parseApiKeys("alice:short")).toThrow(/AGENTRT_API_KEY: the key of entry 1 \(alice\) is shorter than 8 characters/);
    expect(() => parseApiKeys("alice:alice-key-1,x")).toThrow(/the key of entry 2 is shorter than 8/);
    expect(parseApiKeys("12345678")).toHaveLength(1);
  });

  it("refuses an entry a reader could take two ways, naming the rule and never the key", () => {
    const refusals: [string, RegExp][] = [
      // A second ':' : user "abc" with key "def:ghijkl", or user "abc:def"?
      ["abc:def:ghijklmn", /entry 1 has more than one ':'/],
      // Not a user name before ':': a bare key that happens to contain ':'.
      ["k3y/with=:symbols-123", /entry 1: the part before ':' is not a user name/],
      [":no-user-given", /entry 1: the part before ':' is not a user name/],
      ["alice+:alice-key-1", /entry 1: the part before ':' is not a user name/],
      // One key for two callers: which one approves?
      ["alice:same-key-1,bob:same-key-1", /entries 1 and 2 have the same key/],
      ["same-key-1,bob:same-key-1", /entries 1 and 2 have the same key/],
    ];
    for (const [value, reason] of refusals) {
      let message = "";
      try {
        parseApiKeys(value);
      } catch (error) {
        message = (error as Error).message;
      }
      expect([value, message]).toEqual([value, expect.stringMatching(reason)]);
      expect(message).not.toContain("ghijklmn");
      expect(message).not.toContain("same-key-1");
      expect(message).not.toContain("symbols-123");
      expect(message.split("\n")).toHaveLength(1);
    }
  });

  it("keeps user:key with a plain user name, and tells the key owners at start who the callers are", async () => {
    expect(callerOf("abc:defghijk", "defghijk")).toEqual({ id: "abc", roles: [], authenticated: true });
    const lines: string[] = [];
    const { server } = await startTestServer({ apiKey: "abc:defghijk,ops.team+admin:0123456789", log: (line) => lines.push(line) });
    try {
      expect(lines).toContain("API keys for callers abc, ops.team (roles admin)");
      const info = await fetch(`${server.url}/info`, { headers: { "x-api-key": "defghijk" } });
      expect(info.status).toBe(200);
      expect((await fetch(`${server.url}/info`, { headers: { "x-api-key": "abc:defghijk" } })).status).toBe(401);
    } finally {
      await server.close();
    }
  });

  it("refuses to start with a key that is too short, before opening anything", async () => {
    await expect(startServer({ port: 0, db: "/nonexistent-dir/agentrt.db", apiKey: "x", log: () => undefined })).rejects.toThrow(/AGENTRT_API_KEY: the key of entry 1 is shorter than 8 characters/);
  });
});
