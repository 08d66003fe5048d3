import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, TransientToolError } from "agentrt";
import { createResilientExecutor } from "agentrt/tools";
import { CircuitBreakerRegistry } from "../../src/resilience/circuit-breaker.js";

const scope = { runId: "r1", threadId: "t1", toolCallId: "c1", user: "alice", db: undefined };

describe("createResilientExecutor", () => {
  it("retries transient failures with the same idempotency key and reports each retry", async () => {
    const seen: [number, string][] = [];
    const flaky = defineTool({
      name: "flaky", description: "flaky", risk: "write", schema: z.object({}), retry: { attempts: 3, initialDelayMs: 1 },
      execute: (_args, ctx) => {
        seen.push([ctx.attempt, ctx.idempotencyKey]);
        if (ctx.attempt < 3) throw new TransientToolError("TOOL_FAILED", "blip");
        ctx.setExternalOperationId("op-9");
        return "ok";
      },
    });
    const retries: number[] = [];
    const execute = createResilientExecutor({ breakers: new CircuitBreakerRegistry(), onRetry: (e) => { retries.push(e.attempt); } });
    expect(await execute(flaky, {}, scope)).toEqual({ ok: true, result: "ok", externalOperationId: "op-9", attempts: 3 });
    expect(seen).toEqual([[1, "r1:c1:1"], [2, "r1:c1:1"], [3, "r1:c1:1"]]);
    expect(retries).toEqual([1, 2]);
  });

  it("does not retry permanent failures and times out per attempt", async () => {
    let calls = 0;
    const broken = defineTool({
      name: "broken", description: "broken", risk: "read", schema: z.object({}), retry: { attempts: 3, initialDelayMs: 1 },
      execute: () => { calls++; throw new Error("bad request"); },
    });
    const hang = defineTool({
      name: "hang", description: "hang", risk: "read", schema: z.object({}), timeoutMs: 10, execute: () => new Promise(() => {}),
    });
    const execute = createResilientExecutor({ breakers: new CircuitBreakerRegistry() });
    expect(await execute(broken, {}, scope)).toMatchObject({ ok: false, error: { code: "TOOL_FAILED" }, attempts: 1 });
    expect(calls).toBe(1);
    expect(await execute(hang, {}, scope)).toMatchObject({ ok: false, error: { code: "TOOL_TIMEOUT" } });
  });

  it("never retries a side effect that cannot be deduped after a timeout, where it may have happened", async () => {
    let calls = 0;
    const charge = defineTool({
      name: "charge", description: "charge a card", risk: "write", schema: z.object({}), timeoutMs: 20,
      retry: { attempts: 3, initialDelayMs: 1 },
      execute: async () => {
        calls += 1;
        await new Promise((resolve) => setTimeout(resolve, 200));
        return "charged";
      },
    });
    const outcome = await createResilientExecutor({ breakers: new CircuitBreakerRegistry() })(charge, {}, scope);
    expect(outcome).toMatchObject({ ok: false, error: { code: "TOOL_TIMEOUT" } });
    expect(calls).toBe(1);
    // The same tool, declared idempotent, is retried with the same key.
    calls = 0;
    const idempotent = defineTool({ ...charge, name: "charge_idem", idempotent: true });
    await createResilientExecutor({ breakers: new CircuitBreakerRegistry() })(idempotent, {}, scope);
    expect(calls).toBe(3);
  });
});
