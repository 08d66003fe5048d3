import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "agentrt";
import { ToolRegistry, validateToolCall } from "agentrt/tools";

const registry = ToolRegistry.create([
  defineTool({ name: "add", description: "add", risk: "read", schema: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => a + b }),
]);

describe("validateToolCall", () => {
  it("accepts valid object or JSON-string arguments", () => {
    expect(validateToolCall(registry, { id: "1", name: "add", args: { a: 1, b: 2 } })).toMatchObject({ ok: true, args: { a: 1, b: 2 } });
    expect(validateToolCall(registry, { id: "1", name: "add", args: '{"a":1,"b":2}' })).toMatchObject({ ok: true, args: { a: 1, b: 2 } });
  });

  it("returns structured errors for unknown tools, bad JSON and schema violations", () => {
    const unknown = validateToolCall(registry, { id: "1", name: "mul", args: {} });
    expect(unknown).toMatchObject({ ok: false, error: { code: "TOOL_UNKNOWN" } });
    expect(!unknown.ok && unknown.error.message).toContain("available: add");
    expect(validateToolCall(registry, { id: "1", name: "add", args: "{a:1" })).toMatchObject({ ok: false, error: { code: "TOOL_ARGS_INVALID" } });
    const invalid = validateToolCall(registry, { id: "1", name: "add", args: { a: "1" } });
    expect(invalid).toMatchObject({ ok: false, error: { code: "TOOL_ARGS_INVALID", details: { tool: "add" } } });
    expect(!invalid.ok && invalid.error.message).toMatch(/a: .*b: /);
  });
});
