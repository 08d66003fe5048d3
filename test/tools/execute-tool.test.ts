import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, isNotPerformed, NotPerformedError, ToolError } from "agentrt";
import { CircuitBreakerRegistry } from "agentrt/resilience";
import { createResilientExecutor, executeTool, idempotencyKey } from "agentrt/tools";

const scope = { runId: "r1", threadId: "t1", toolCallId: "c1", user: "alice", db: undefined };

describe("executeTool", () => {
  it("passes the tool context and returns the result with the external operation id", async () => {
    const tool = defineTool({
      name: "op", description: "op", risk: "write", schema: z.object({}),
      execute: (_args, ctx) => { ctx.setExternalOperationId("ext-1"); return { key: ctx.idempotencyKey, attempt: ctx.attempt }; },
    });
    expect(await executeTool(tool, {}, { ...scope, actionVersion: 2 })).toEqual({
      ok: true, result: { key: "r1:c1:2", attempt: 1 }, externalOperationId: "ext-1", attempts: 1,
    });
    expect(idempotencyKey("r1", "c1")).toBe("r1:c1:1");
  });

  it("aborts the signal and fails with TOOL_TIMEOUT after timeoutMs, even if the tool ignores it", async () => {
    let aborted = false;
    const tool = defineTool({
      name: "hang", description: "hang", risk: "read", schema: z.object({}), timeoutMs: 20,
      execute: (_args, ctx) => { ctx.signal.addEventListener("abort", () => { aborted = true; }); return new Promise(() => {}); },
    });
    const outcome = await executeTool(tool, {}, scope);
    expect(outcome).toMatchObject({ ok: false, error: { code: "TOOL_TIMEOUT" } });
    expect(aborted).toBe(true);
  });

  it("wraps thrown errors as TOOL_FAILED and keeps agentrt errors as they are", async () => {
    const plain = defineTool({ name: "p", description: "p", risk: "read", schema: z.object({}), execute: () => { throw new Error("nope"); } });
    const typed = defineTool({
      name: "q", description: "q", risk: "read", schema: z.object({}),
      execute: () => { throw new ToolError("CIRCUIT_OPEN", "breaker open"); },
    });
    const first = await executeTool(plain, {}, scope);
    expect(first).toMatchObject({ ok: false, error: { code: "TOOL_FAILED" } });
    expect(!first.ok && first.error.cause).toBeInstanceOf(Error);
    expect(await executeTool(typed, {}, scope)).toMatchObject({ ok: false, error: { code: "CIRCUIT_OPEN" } });
  });

  it("fails with CANCELED when the caller's signal aborts", async () => {
    const controller = new AbortController();
    const tool = defineTool({
      name: "wait", description: "wait", risk: "read", schema: z.object({}),
      execute: (_args, ctx) => new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(new Error("canceled")))),
    });
    const pending = executeTool(tool, {}, { ...scope, signal: controller.signal });
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, error: { code: "CANCELED" } });
  });

  it("on a cancel, believes a tool that honours its signal and says it never performed the call", async () => {
    const controller = new AbortController();
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const tool = defineTool({
      name: "deploy", description: "deploy", risk: "write", schema: z.object({}),
      execute: (_args, ctx) => new Promise((_, reject) => {
        ctx.signal.addEventListener("abort", () => reject(new NotPerformedError("CANCELED", "aborted while queued", { cause: ctx.signal.reason })));
        started();
      }),
    });
    const pending = executeTool(tool, {}, { ...scope, signal: controller.signal });
    await running;
    controller.abort(new ToolError("CANCELED", "run canceled"));
    const outcome = await pending;
    expect(outcome).toMatchObject({ ok: false, error: { code: "CANCELED", performed: false, message: "deploy was canceled, before it was performed" } });
    expect(isNotPerformed((outcome as { error: unknown }).error)).toBe(true);
  });

  it("on a cancel, a tool that ignores its signal is still cut off at once, its outcome unknown", async () => {
    const controller = new AbortController();
    const tool = defineTool({ name: "deaf", description: "deaf", risk: "write", schema: z.object({}), execute: () => new Promise(() => {}) });
    const pending = executeTool(tool, {}, { ...scope, signal: controller.signal });
    controller.abort();
    const outcome = await pending;
    expect(outcome).toMatchObject({ ok: false, error: { code: "CANCELED" } });
    expect(isNotPerformed((outcome as { error: unknown }).error)).toBe(false);
  });

  it("times out as the resilient executor does: one timeout, the same TOOL_TIMEOUT", async () => {
    const tool = defineTool({ name: "slow", description: "slow", risk: "read", schema: z.object({}), timeoutMs: 20, execute: () => new Promise(() => {}) });
    const once = await executeTool(tool, {}, scope);
    const resilient = await createResilientExecutor({ breakers: new CircuitBreakerRegistry() })(tool, {}, scope);
    expect(once).toMatchObject({ ok: false, error: { code: "TOOL_TIMEOUT", message: "slow timed out after 20 ms" } });
    expect(resilient).toMatchObject({ ok: false, error: { code: "TOOL_TIMEOUT", message: "slow timed out after 20 ms" } });
  });

  it("does not call a tool whose run was canceled before the call", async () => {
    let called = false;
    const tool = defineTool({ name: "late", description: "late", risk: "write", schema: z.object({}), execute: () => { called = true; return 1; } });
    const outcome = await executeTool(tool, {}, { ...scope, signal: AbortSignal.abort() });
    expect(outcome).toMatchObject({ ok: false, error: { code: "CANCELED", message: "late was canceled" } });
    expect(called).toBe(false);
  });
});
