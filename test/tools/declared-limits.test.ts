// A tool's declared `limits` without shared state (SQLite, or no runtime): the executor applies them in this
// process — its concurrency cap and its breaker's threshold — and a scope's `sharedLimits` takes them over.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "agentrt";
import { createResilientExecutor } from "agentrt/tools";
import { CircuitBreakerRegistry } from "../../src/resilience/circuit-breaker.js";
import { ToolLimits } from "../../src/resilience/limits.js";
import type { SharedToolLimits } from "../../src/resilience/shared-tool-limits.js";

const scope = { runId: "r1", threadId: "t1", toolCallId: "c1", user: "alice", db: undefined };

describe("declared tool limits", () => {
  it("cap a tool's calls in flight in this process when nothing is shared", async () => {
    let inFlight = 0;
    let most = 0;
    const capped = defineTool({
      name: "capped", description: "capped", risk: "read", schema: z.object({}), limits: { concurrency: 2 },
      execute: async () => {
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 10));
        inFlight--;
        return "ok";
      },
    });
    const execute = createResilientExecutor({ breakers: new CircuitBreakerRegistry(), limits: new ToolLimits() });
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => execute(capped, {}, scope)));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(most).toBe(2);
  });

  it("open the tool's breaker at its declared threshold", async () => {
    let calls = 0;
    const failing = defineTool({
      name: "failing", description: "failing", risk: "read", schema: z.object({}), limits: { breaker: { failureThreshold: 1 } },
      execute: () => { calls++; throw new Error("down"); },
    });
    const execute = createResilientExecutor({ breakers: new CircuitBreakerRegistry(), limits: new ToolLimits() });
    expect(await execute(failing, {}, scope)).toMatchObject({ ok: false, error: { code: "TOOL_FAILED" } });
    expect(await execute(failing, {}, scope)).toMatchObject({ ok: false, error: { code: "CIRCUIT_OPEN" } });
    expect(calls).toBe(1);
  });

  it("go through the scope's shared limits when it has them, and an undeclared tool never does", async () => {
    const seen: string[] = [];
    const shared = {
      breaker: (tool: string) => ({ run: <T>(fn: () => Promise<T>) => (seen.push(`breaker ${tool}`), fn()) }),
      run: <T>(tool: string, spec: object, fn: () => Promise<T>) => (seen.push(`limits ${tool} ${JSON.stringify(spec)}`), fn()),
    } as unknown as SharedToolLimits;
    const limited = defineTool({ name: "limited", description: "", risk: "read", schema: z.object({}), limits: { rate: { ratePerSecond: 5 } }, execute: () => 1 });
    const plain = defineTool({ name: "plain", description: "", risk: "read", schema: z.object({}), execute: () => 2 });
    const execute = createResilientExecutor({ breakers: new CircuitBreakerRegistry(), limits: new ToolLimits() });
    expect(await execute(limited, {}, { ...scope, sharedLimits: shared })).toMatchObject({ ok: true, result: 1 });
    expect(await execute(plain, {}, { ...scope, sharedLimits: shared })).toMatchObject({ ok: true, result: 2 });
    expect(seen).toEqual(["breaker limited", 'limits limited {"rate":{"ratePerSecond":5}}']);
  });
});
