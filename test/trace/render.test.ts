import { describe, expect, it } from "vitest";
import { renderTraceTree, type TraceSpan } from "../../src/trace/index.js";
import { T0, freshStore, seedOpsRollback } from "./fixtures/seed.js";

/** Column range [first, last] covered by a line's timeline bar (filled cells only). */
function barCells(line: string): Set<number> {
  const bar = line.slice(line.indexOf("|") + 1, line.lastIndexOf("|"));
  const cells = new Set<number>();
  [...bar].forEach((ch, i) => {
    if (ch !== "·") cells.add(i);
  });
  return cells;
}

describe("renderTraceTree", () => {
  it("renders the seed's tree with durations, tokens, cost and timeline (golden)", async () => {
    const { store } = freshStore();
    await seedOpsRollback(store);
    const expected = [
      "invoke_agent run_01                               ok  1.00s  2500→300 tok  $0.000555  |████████████████████████████████|",
      "├── state QUEUED → RUNNING                                                            |◆·······························|",
      "├── model_turn 1                                  ok  200ms  1000→200 tok  $0.000270  |███████·························|",
      "│   └── chat gpt-4o-mini                          ok  200ms  1000→200 tok  $0.000270  |███████·························|",
      "├── tools 1                                       ok  400ms                           |······██████████████············|",
      "│   ├── execute_tool get_deployment               ok  300ms                           |······██████████················|",
      "│   └── execute_tool query_logs                   ok  390ms                           |······██████████████············|",
      "├── state RUNNING → WAITING_APPROVAL                                                  |···················◆············|",
      "├── approval_wait rollback_deployment             ok  200ms                           |···················███████······|",
      "├── state WAITING_APPROVAL → RUNNING                                                  |·························◆······|",
      "├── execute_tool rollback_deployment (attempt 2)  ok  100ms                           |·························████···|",
      "├── model_turn 2                                  ok  100ms  1500→100 tok  $0.000285  |····························████|",
      "└── state RUNNING → SUCCEEDED                                                         |·······························◆|",
    ].join("\n");
    expect(renderTraceTree(await store.spans("run_01"), { width: 120 })).toBe(expected);
  });

  it("shows parallel branches as overlapping bars on consecutive lines", async () => {
    const { store } = freshStore();
    const rec = await store.recorder("par", { graph: "city_weather", startTime: T0 });
    const step = rec.startStep("tools 1", { startTime: T0 });
    const cities = ["Beijing", "Shanghai", "Shenzhen"];
    const handles = cities.map((city, i) =>
      rec.startSpan({ kind: "tool_call", name: `execute_tool get_weather ${city}`, parentId: step.id, startTime: T0 + i * 5, attributes: { tool: "get_weather", args: { city } } }),
    );
    handles.forEach((h, i) => h.end({ endTime: T0 + 300 + i * 10 }));
    step.end({ endTime: T0 + 320 });
    rec.end({ endTime: T0 + 320 });
    const lines = renderTraceTree(await store.spans("par"), { width: 100 }).split("\n");
    const toolLines = lines.filter((l) => l.includes("get_weather"));
    expect(toolLines).toHaveLength(3);
    const [a, b, c] = toolLines.map(barCells);
    const overlap = [...a!].filter((i) => b!.has(i) && c!.has(i));
    // Each call covers most of the step; sequential calls could not share any column.
    expect(overlap.length).toBeGreaterThan(a!.size / 2);
  });

  it("marks a running span with a trailing + and extends it to the end of the timeline", async () => {
    const { store } = freshStore();
    const rec = await store.recorder("waiting", { startTime: T0 });
    rec.startSpan({ kind: "approval_wait", name: "approval_wait rollback_deployment", startTime: T0 + 100 });
    const out = renderTraceTree(await store.spans("waiting"), { width: 100, now: T0 + 2000 });
    const line = out.split("\n").find((l) => l.includes("approval_wait"))!;
    expect(line).toContain("running");
    expect(line).toContain("1.90s+");
    expect(line.slice(line.lastIndexOf("|") - 1, line.lastIndexOf("|"))).toBe("░");
  });

  it("returns an empty string for no spans and hangs orphans at the top level", async () => {
    expect(renderTraceTree([])).toBe("");
    const orphan: TraceSpan = {
      spanId: "x", runId: "r", parentId: "missing", stepId: null, kind: "tool_call", name: "execute_tool t", status: "error",
      startMs: T0, endMs: T0 + 5, graph: null, agent: null, model: null, inputTokens: null, outputTokens: null, costUsd: null,
      tool: "t", toolCallId: null, args: null, attempt: 1, idempotencyKey: null, externalOperationId: null, resultSize: null,
      error: "boom", extra: {},
    };
    const out = renderTraceTree([orphan], { width: 60 });
    expect(out.startsWith("execute_tool t")).toBe(true);
    expect(out).toContain("error");
    expect(out).toContain("▒");
  });
});
