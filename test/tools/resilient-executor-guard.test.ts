// The run guard around tool attempts: a refused attempt is never made (nor waited for); backoffs are reported once each.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, TransientToolError } from "agentrt";
import { createResilientExecutor } from "agentrt/tools";
import { BudgetExceededError } from "../../src/runs/index.js";
import { CircuitBreakerRegistry } from "../../src/resilience/circuit-breaker.js";
import type { ToolGuard } from "../../src/tools/tool-guard.js";

const late = () => new BudgetExceededError({ limit: "deadlineMs", code: "DEADLINE_EXCEEDED", max: 10, used: 11, next: 0 });

function flaky(failures: number) {
  const attempts: number[] = [];
  const tool = defineTool({
    name: "flaky", description: "flaky", risk: "read", schema: z.object({}), retry: { attempts: 5, initialDelayMs: 1, maxDelayMs: 1 },
    execute: (_args, ctx) => {
      attempts.push(ctx.attempt);
      if (attempts.length <= failures) throw new TransientToolError("TOOL_FAILED", "blip");
      return "ok";
    },
  });
  return { tool, attempts };
}

const scope = (guard: ToolGuard) => ({ runId: "r1", threadId: "t1", toolCallId: "c1", user: "alice", db: undefined, guard });

describe("createResilientExecutor with a run guard", () => {
  it("does not start a call the guard refuses", async () => {
    const { tool, attempts } = flaky(0);
    const outcome = await createResilientExecutor({ breakers: new CircuitBreakerRegistry() })(tool, {}, scope({ beforeToolAttempt: late }));
    expect(outcome).toMatchObject({ ok: false, error: { code: "DEADLINE_EXCEEDED" }, attempts: 0 });
    expect(attempts).toEqual([]);
  });

  it("stops between attempts when the next one is refused, without backing off", async () => {
    const { tool, attempts } = flaky(1);
    const log: string[] = [];
    const guard: ToolGuard = {
      beforeToolAttempt: (e) => (e.attempt >= 2 ? late() : undefined),
      backoffStarted: () => log.push("start"),
      backoffEnded: () => log.push("end"),
    };
    const breakers = new CircuitBreakerRegistry();
    const outcome = await createResilientExecutor({ breakers })(tool, {}, scope(guard));
    expect(outcome).toMatchObject({ ok: false, error: { code: "DEADLINE_EXCEEDED" } });
    expect(attempts).toEqual([1]);
    expect(log).toEqual([]);
  });

  it("reports each backoff once: started before the wait, ended when the next attempt starts", async () => {
    const { tool, attempts } = flaky(2);
    const log: string[] = [];
    const guard: ToolGuard = {
      backoffStarted: (e) => log.push(`start after ${e.attempt}`),
      backoffEnded: (e) => log.push(`end before ${e.attempt} (${attempts.length} made)`),
    };
    expect(await createResilientExecutor({ breakers: new CircuitBreakerRegistry() })(tool, {}, scope(guard))).toMatchObject({ ok: true });
    expect(log).toEqual(["start after 1", "end before 2 (1 made)", "start after 2", "end before 3 (2 made)"]);
  });

  it("ends a backoff the call never came back from (canceled while waiting)", async () => {
    const { tool } = flaky(5);
    const controller = new AbortController();
    const log: string[] = [];
    const guard: ToolGuard = {
      backoffStarted: () => { log.push("start"); controller.abort(); },
      backoffEnded: () => log.push("end"),
    };
    const outcome = await createResilientExecutor({ breakers: new CircuitBreakerRegistry() })(tool, {}, { ...scope(guard), signal: controller.signal });
    expect(outcome).toMatchObject({ ok: false, error: { code: "CANCELED" } });
    expect(log).toEqual(["start", "end"]);
  });
});
