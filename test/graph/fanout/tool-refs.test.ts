import { describe, expect, it } from "vitest";
import {
  ToolRefError,
  canonicalRefs,
  findRefs,
  isToolRef,
  parseRefPath,
  planToolCalls,
  refGroups,
  resolveArgs,
  toolRefCode,
  type PlannedCall,
  type ToolRefProblem,
} from "../../../src/graph/fanout/tool-refs.js";

const call = (id: string, name: string, args: Record<string, unknown>): PlannedCall => ({ id, name, args });

describe("tool call references", () => {
  it("recognises only exact reference objects, at any depth", () => {
    expect(isToolRef({ $ref: "call_1", path: "items[0].sku" })).toBe(true);
    expect(isToolRef({ $ref: "call_1", extra: 1 })).toBe(false);
    expect(isToolRef({ $ref: 3 })).toBe(false);
    expect(findRefs({ a: [{ $ref: "x" }, { b: { $ref: "y", path: "z" } }], c: "plain" }).map((r) => r.$ref)).toEqual(["x", "y"]);
    expect(parseRefPath("items[0].sku")).toEqual(["items", 0, "sku"]);
    expect(parseRefPath("")).toEqual([]);
  });

  it("plans get_order → (check_inventory ∥ check_logistics) with each call's dependencies", () => {
    const plan = planToolCalls([
      call("call_1", "get_order", { order_id: "10086" }),
      call("call_2", "check_inventory", { sku: { $ref: "call_1", path: "items[0].sku" } }),
      call("call_3", "check_logistics", { order_id: { $ref: "call_1", path: "id" } }),
    ]);
    expect(plan.problems.size).toBe(0);
    expect(Object.fromEntries(plan.deps)).toEqual({ call_1: [], call_2: ["call_1"], call_3: ["call_1"] });
  });

  it("reports a missing reference and a cycle as structured problems, and blocks their dependents only", () => {
    const plan = planToolCalls([
      call("a", "t", { x: { $ref: "ghost" } }),
      call("b", "t", { x: { $ref: "c" } }),
      call("c", "t", { x: { $ref: "b" } }),
      call("d", "t", { x: { $ref: "a" } }),
      call("e", "t", { x: 1 }),
    ]);
    expect(plan.problems.get("a")).toEqual({ kind: "missing_ref", callId: "a", ref: "ghost" });
    expect(plan.problems.get("b")).toEqual({ kind: "cycle", callId: "b", cycle: ["b", "c", "b"] });
    expect(plan.problems.get("c")?.kind).toBe("cycle");
    expect(plan.problems.get("d")).toEqual({ kind: "ref_failed", callId: "d", ref: "a" });
    expect(plan.problems.has("e")).toBe(false);
    expect(plan.ids.filter((id) => !plan.problems.has(id))).toEqual(["e"]);
  });

  it("substitutes resolved values and refuses absent paths or unfinished references with a structured error", () => {
    const results = new Map<string, unknown>([["call_1", { id: "10086", items: [{ sku: "PRN-80" }] }]]);
    expect(resolveArgs("call_2", { sku: { $ref: "call_1", path: "items[0].sku" }, all: { $ref: "call_1" }, n: 2 }, results)).toEqual({
      sku: "PRN-80",
      all: { id: "10086", items: [{ sku: "PRN-80" }] },
      n: 2,
    });
    const bad = () => resolveArgs("call_2", { sku: { $ref: "call_1", path: "items[3].sku" } }, results);
    expect(bad).toThrow(ToolRefError);
    try {
      bad();
    } catch (error) {
      expect((error as ToolRefError).code).toBe("TOOL_REF_BAD_PATH");
      expect((error as ToolRefError).details).toEqual({ kind: "bad_path", callId: "call_2", ref: "call_1", path: "items[3].sku" });
    }
    expect(() => resolveArgs("call_3", { x: { $ref: "call_9" } }, results)).toThrow(expect.objectContaining({ code: "TOOL_REF_FAILED" }));
    // The error's code is the one the refused call's ToolMessage carries, for every kind.
    const problems: ToolRefProblem[] = [
      { kind: "missing_ref", callId: "a", ref: "b" },
      { kind: "cycle", callId: "a", cycle: ["a", "a"] },
      { kind: "bad_path", callId: "a", ref: "b", path: "x" },
      { kind: "ref_failed", callId: "a", ref: "b" },
    ];
    for (const problem of problems) expect(new ToolRefError(problem).code).toBe(toolRefCode(problem));
  });

  it("reads positional references as the turn's n-th call unless a call has that exact id", () => {
    const calls = canonicalRefs([
      call("call_abc", "get_order", { order_id: "1" }),
      call("call_def", "t", { a: { $ref: "call_1", path: "id" }, b: [{ $ref: "#1" }], c: { $ref: "call_abc" }, d: { $ref: "call_9" } }),
      call("call_2", "t", { x: { $ref: "call_2" } }),
    ]);
    expect(calls[1]?.args).toEqual({ a: { $ref: "call_abc", path: "id" }, b: [{ $ref: "call_abc" }], c: { $ref: "call_abc" }, d: { $ref: "call_9" } });
    expect(calls[2]?.args).toEqual({ x: { $ref: "call_2" } });
    expect(toolRefCode(planToolCalls(calls).problems.get("call_2")!)).toBe("TOOL_REF_CYCLE");
    expect(toolRefCode(planToolCalls(calls).problems.get("call_def")!)).toBe("TOOL_REF_MISSING");
  });

  it("lets an exact id win over a position when a provider numbers calls from 0", () => {
    const calls = canonicalRefs([
      call("call_0", "get_order", { order_id: "1" }),
      call("call_1", "t", { x: 1 }),
      call("call_2", "t", { a: { $ref: "call_1" }, b: { $ref: "call_0" }, c: { $ref: "#1" } }),
    ]);
    // "call_1" and "call_0" are ids of this turn, so they stay; "#1" is no id, so it is the 1st call.
    expect(calls[2]?.args).toEqual({ a: { $ref: "call_1" }, b: { $ref: "call_0" }, c: { $ref: "call_0" } });
    expect(planToolCalls(calls).deps.get("call_2")).toEqual(["call_1", "call_0"]);
  });

  it("groups calls linked by references, each unlinked call alone, in the model's order", () => {
    const plan = planToolCalls([
      call("a", "t", {}),
      call("b", "t", {}),
      call("c", "t", { x: { $ref: "a" } }),
      call("d", "t", { x: { $ref: "c" }, y: { $ref: "e" } }),
      call("e", "t", {}),
    ]);
    expect(refGroups(plan)).toEqual([["a", "c", "d", "e"], ["b"]]);
  });
});
