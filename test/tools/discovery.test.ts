import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "agentrt";
import { ToolIndex } from "agentrt/tools";

const tool = (name: string, description: string, tags: string[] = []) =>
  defineTool({ name, description, risk: "read", tags, schema: z.object({}), execute: () => null });

const many = [
  tool("get_weather", "Current weather and temperature for a city", ["weather"]),
  tool("get_forecast", "Weather forecast for the next days", ["weather"]),
  tool("get_order", "Look up an order by id", ["orders"]),
  tool("rollback_deployment", "Roll a service back to an earlier revision", ["deploy"]),
  ...Array.from({ length: 200 }, (_, i) => tool(`noise_${i}`, `Unrelated utility number ${i}`, ["misc"])),
];

describe("ToolIndex", () => {
  it("offers the few tools relevant to the request out of hundreds", () => {
    const index = ToolIndex.create(many);
    expect(index.select("What's the weather in Beijing?", { max: 3 }).map((t) => t.name).slice(0, 2).sort())
      .toEqual(["get_forecast", "get_weather"]);
    expect(index.select("roll back the payments deployment", { max: 2 })[0]?.name).toBe("rollback_deployment");
  });

  it("always offers pinned tools and can filter by tag", () => {
    const index = ToolIndex.create(many);
    const names = index.select("weather", { max: 2, pinned: ["get_order"], tags: ["weather"] }).map((t) => t.name);
    expect(names[0]).toBe("get_order");
    expect(names).toHaveLength(2);
    expect(index.select("order", { max: 5, tags: ["deploy"] })).toEqual([]);
  });
});
