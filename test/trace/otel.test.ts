import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { ToolError } from "../../src/errors.js";
import { openTraceStore } from "../../src/trace/index.js";
import { T0, freshStore, seedOpsRollback, tempDbPath } from "./fixtures/seed.js";

const exporter = new InMemorySpanExporter();

function byName(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.find((s) => s.name === name);
  if (found === undefined) throw new Error(`no span ${name} in ${spans.map((s) => s.name).join(", ")}`);
  return found;
}

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe("OpenTelemetry export", () => {
  afterAll(() => trace.disable());

  it("is off (and records nothing extra) while no tracer provider is registered", async () => {
    const { store } = freshStore({ otel: true });
    await seedOpsRollback(store);
    const root = (await store.spans("run_01"))[0]!;
    expect(root.extra["otel.trace_id"]).toBeUndefined();
  });

  it("emits GenAI-convention span names, attributes and parentage", async () => {
    expect(trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))).toBe(true);
    const { store } = freshStore({ otel: true });
    await seedOpsRollback(store);
    const spans = exporter.getFinishedSpans();

    const roots = spans.filter((s) => s.name === "invoke_agent ops");
    const root = roots.find((s) => s.parentSpanContext === undefined)!;
    expect(root.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "ops", "agentrt.run.id": "run_01", "agentrt.graph": "ops_rollback" });
    expect(root.startTime).toEqual([Math.floor(T0 / 1000), 0]);
    // Entering WAITING_APPROVAL ends this process's segment (it may exit); the resumed part is a continuation.
    const continuation = roots.find((s) => s !== root)!;
    expect(roots).toHaveLength(2);
    expect(parentOf(continuation)).toBe(root.spanContext().spanId);
    expect(continuation.attributes["agentrt.resumed"]).toBe(true);
    const transitions = [root, continuation].flatMap((r) => r.events.filter((e) => e.name === "agentrt.state_change").map((e) => e.attributes?.["agentrt.to"]));
    expect(transitions).toEqual(["RUNNING", "WAITING_APPROVAL", "RUNNING", "SUCCEEDED"]);
    expect(parentOf(byName(spans, "execute_tool rollback_deployment"))).toBe(continuation.spanContext().spanId);

    const turn = byName(spans, "model_turn 1");
    expect(parentOf(turn)).toBe(root.spanContext().spanId);
    const chat = spans.find((s) => s.name === "chat gpt-4o-mini" && parentOf(s) === turn.spanContext().spanId)!;
    expect(chat.kind).toBe(SpanKind.CLIENT);
    expect(chat.attributes).toMatchObject({
      "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini", "gen_ai.usage.input_tokens": 1000,
      "gen_ai.usage.output_tokens": 200, "agentrt.run.id": "run_01", "agentrt.step.id": "step-1",
    });
    expect(chat.attributes["agentrt.cost.usd"]).toBeCloseTo(0.00027, 12);

    const tools = byName(spans, "tools 1");
    const getDeployment = byName(spans, "execute_tool get_deployment");
    expect(parentOf(getDeployment)).toBe(tools.spanContext().spanId);
    expect(getDeployment.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_deployment", "gen_ai.tool.call.id": "call_1", "agentrt.step.id": "step-2" });
    expect(byName(spans, "execute_tool rollback_deployment").attributes).toMatchObject({ "agentrt.tool.attempt": 2, "agentrt.tool.external_operation_id": "op-77" });
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
  });

  it("marks failures as ERROR with error.type from the agentrt code", async () => {
    exporter.reset();
    const { store } = freshStore({ otel: true });
    const rec = await store.recorder("r-err", { graph: "g" });
    rec.recordToolCall({ tool: "get_order", error: new ToolError("TOOL_TIMEOUT", "timed out") });
    rec.end({ status: "error", error: new Error("run failed") });
    await rec.close();
    const call = byName(exporter.getFinishedSpans(), "execute_tool get_order");
    expect(call.status.code).toBe(SpanStatusCode.ERROR);
    expect(call.attributes["error.type"]).toBe("TOOL_TIMEOUT");
  });

  it("continues the same trace when another connection resumes the run", async () => {
    exporter.reset();
    const path = tempDbPath();
    const a = await openTraceStore(openDatabase(path)).recorder("r-resume", { graph: "g", agent: "ops" });
    a.startSpan({ kind: "approval_wait", name: "approval_wait rollback" });
    await a.close();
    const b = await openTraceStore(openDatabase(path)).recorder("r-resume");
    const waitId = b.openSpans("approval_wait")[0]!.spanId;
    b.endSpan(waitId);
    b.recordToolCall({ tool: "rollback" });
    b.recordStateChange("RUNNING", "SUCCEEDED");
    await b.close();
    const spans = exporter.getFinishedSpans();
    const roots = spans.filter((s) => s.name === "invoke_agent ops");
    expect(roots).toHaveLength(2);
    const [first, continuation] = roots[0]!.attributes["agentrt.resumed"] === true ? [roots[1]!, roots[0]!] : [roots[0]!, roots[1]!];
    expect(continuation.attributes["agentrt.resumed"]).toBe(true);
    expect(parentOf(continuation)).toBe(first.spanContext().spanId);
    expect(continuation.spanContext().traceId).toBe(first.spanContext().traceId);
    expect(parentOf(byName(spans, "execute_tool rollback"))).toBe(continuation.spanContext().spanId);
    expect(byName(spans, "approval_wait rollback").attributes["agentrt.span.open"]).toBe(true);
  });

  it("shares one live recorder per run in a process, so repeated recorder() calls add no OTel segments", async () => {
    exporter.reset();
    const { store } = freshStore({ otel: true });
    const a = await store.recorder("r-live", { graph: "g", agent: "ops" });
    const b = await store.recorder("r-live");
    expect(b).toBe(a);
    b.recordToolCall({ tool: "t" });
    a.recordStateChange("RUNNING", "SUCCEEDED");
    expect(await store.recorder("r-live")).not.toBe(a); // released once finished
    const spans = exporter.getFinishedSpans();
    expect(spans.filter((s) => s.name === "invoke_agent ops")).toHaveLength(1);
    expect(parentOf(byName(spans, "execute_tool t"))).toBe(byName(spans, "invoke_agent ops").spanContext().spanId);
  });
});
