import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { openTraceStore } from "../../src/trace/index.js";
import { tempDbPath } from "./fixtures/seed.js";

const child = fileURLToPath(new URL("./fixtures/record-child.ts", import.meta.url));

function record(args: string[]): Promise<{ rootId: string; resumed: boolean }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ["--import", "tsx", child, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    proc.stdout.on("data", (d: Buffer) => (out += d.toString()));
    proc.stderr.on("data", (d: Buffer) => (err += d.toString()));
    proc.on("error", reject);
    proc.on("close", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited ${code}: ${err}`))));
  });
}

describe("recording one run from several processes", () => {
  it("a run paused in one process is continued in another under the same root", async () => {
    const path = tempDbPath();
    const first = await record([path, "run_01", "pause"]);
    expect(first.resumed).toBe(false);

    const rec = await openTraceStore(openDatabase(path), { otel: false }).recorder("run_01", { graph: "ops_rollback" });
    expect(rec.resumed).toBe(true);
    expect(rec.rootId).toBe(first.rootId);
    const [wait] = rec.openSpans("approval_wait");
    const [step] = rec.openSpans("step");
    expect(wait).toMatchObject({ name: "approval_wait rollback_deployment", status: "running", parentId: first.rootId });
    rec.recordStateChange("WAITING_APPROVAL", "RUNNING");
    expect(rec.openSpans("approval_wait")).toEqual([]);
    rec.recordToolCall({ tool: "rollback_deployment", parentId: step!.spanId, idempotencyKey: "run_01:call_3:1" });
    rec.endSpan(step!.spanId);
    rec.recordStateChange("RUNNING", "SUCCEEDED");
    await rec.close();

    const spans = await openTraceStore(openDatabase(path, { readonly: true })).spans("run_01");
    expect(spans.filter((s) => s.kind === "invoke_agent")).toHaveLength(1);
    expect(spans.every((s) => s.status !== "running")).toBe(true);
    const rollback = spans.find((s) => s.tool === "rollback_deployment")!;
    expect(rollback).toMatchObject({ parentId: step!.spanId, stepId: "step-approval" });
    expect(spans.find((s) => s.kind === "approval_wait")!.endMs).toBeLessThanOrEqual(rollback.startMs);
  });

  it("processes recording the same new run at once share one root and lose no span", async () => {
    const path = tempDbPath();
    const results = await Promise.all([1, 2].map(() => record([path, "run_par", "burst", "100"])));
    expect(new Set(results.map((r) => r.rootId)).size).toBe(1);
    expect(results.filter((r) => !r.resumed).length).toBeLessThanOrEqual(1);
    const spans = await openTraceStore(openDatabase(path, { readonly: true })).spans("run_par");
    expect(spans.filter((s) => s.kind === "invoke_agent")).toHaveLength(1);
    expect(spans.filter((s) => s.kind === "tool_call")).toHaveLength(200);
    expect(spans.filter((s) => s.kind === "step")).toHaveLength(2);
  });
});
