import { describe, expect, it } from "vitest";
import { REDACTED, redactArgs } from "../../src/trace/index.js";
import { T0, freshStore } from "./fixtures/seed.js";

describe("redactArgs", () => {
  it("replaces top-level, nested and wildcard paths without touching the input", () => {
    const args = { token: "s3cret", city: "Paris", headers: { authorization: "Bearer x", accept: "json" }, users: [{ name: "a", password: "p1" }, { name: "b", password: "p2" }] };
    const out = redactArgs(args, ["token", "headers.authorization", "users.*.password", "absent.path"]);
    expect(out).toEqual({
      token: REDACTED,
      city: "Paris",
      headers: { authorization: REDACTED, accept: "json" },
      users: [{ name: "a", password: REDACTED }, { name: "b", password: REDACTED }],
    });
    expect(args.token).toBe("s3cret");
    expect(args.users[0]!.password).toBe("p1");
  });

  it("handles array indexes, primitives and an empty path list", () => {
    expect(redactArgs({ list: ["a", "b"] }, ["list.1"])).toEqual({ list: ["a", REDACTED] });
    expect(redactArgs("plain", ["x"])).toBe("plain");
    const same = { a: 1 };
    expect(redactArgs(same, [])).toBe(same);
  });
});

describe("tool call arguments in the trace", () => {
  it("are stored redacted per tool, and long arguments are cut", async () => {
    const { store } = freshStore({ maxArgsChars: 50 });
    const rec = await store.recorder("r", { startTime: T0 });
    rec.recordToolCall({ tool: "send_message", args: { to: "rep", apiKey: "k-123" }, redact: ["apiKey"], startTime: T0, endTime: T0 + 1 });
    rec.recordToolCall({ tool: "big", args: { text: "x".repeat(200) }, startTime: T0, endTime: T0 + 1 });
    const [send, big] = (await store.spans("r")).filter((s) => s.kind === "tool_call");
    expect(send!.args).toEqual({ to: "rep", apiKey: REDACTED });
    expect(String(big!.args)).toMatch(/…\[truncated \d+ chars\]$/);
  });
});
