import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "agentrt";
import { ToolRegistry } from "agentrt/tools";

const make = (name: string) =>
  defineTool({ name, description: `does ${name}`, risk: "read", schema: z.object({ q: z.string() }), execute: () => null });

describe("ToolRegistry", () => {
  it("looks tools up by name and lists them in order", () => {
    const registry = ToolRegistry.create([make("a"), make("b")]);
    expect(registry.names()).toEqual(["a", "b"]);
    expect(registry.get("b")?.name).toBe("b");
    expect(registry.has("c")).toBe(false);
  });

  it("refuses duplicate names", () => {
    expect(() => ToolRegistry.create([make("a"), make("a")])).toThrow(/duplicate tool name "a"/);
  });

  it("produces function definitions with JSON schema parameters for bindTools", () => {
    const [definition] = ToolRegistry.create([make("search")]).definitions();
    expect(definition).toMatchObject({
      type: "function",
      function: { name: "search", description: "does search", parameters: { type: "object", properties: { q: { type: "string" } } } },
    });
  });
});
