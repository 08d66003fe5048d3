// makeRoom, the multitask decision, as a plain function: a waiting run is superseded (or held with ifWaiting reject),
// queued and running ones are refused, queued behind or canceled per strategy — and a refusal cancels nothing.
import { describe, expect, it } from "vitest";
import type { RunRecord, RunStatus } from "../../src/runs/index.js";
import { makeRoom, supersededReason, type IfWaiting, type MultitaskStrategy } from "../../src/runtime/multitask.js";

const run = (runId: string, status: RunStatus, pending: unknown = null) => ({ runId, status, pending }) as RunRecord;
const waiting = run("r-wait", "WAITING_APPROVAL", [{ action_id: "act_1", tool: "rollback_deployment" }]);
const running = run("r-run", "RUNNING");

function room(active: RunRecord[], strategy: MultitaskStrategy, ifWaiting?: IfWaiting) {
  const canceled: [string, string][] = [];
  try {
    const behind = makeRoom("t1", active, strategy, (id, reason) => canceled.push([id, reason]), ifWaiting);
    return { behind, canceled };
  } catch (error) {
    return { code: (error as { code?: string }).code, canceled };
  }
}

describe("makeRoom", () => {
  it("supersedes a waiting run under reject and enqueue, naming what it will not perform", () => {
    expect(room([waiting], "reject")).toEqual({ behind: [], canceled: [["r-wait", supersededReason(waiting)]] });
    expect(supersededReason(waiting)).toBe("superseded by new input on its thread; pending actions not performed: rollback_deployment (act_1)");
    expect(room([waiting, running], "enqueue")).toEqual({ behind: ["r-run"], canceled: [["r-wait", supersededReason(waiting)]] });
    expect(supersededReason(run("r-ask", "WAITING_INPUT", [{ interrupt_id: "i1" }]))).toBe("superseded by new input on its thread; its question left unanswered (i1)");
  });

  it("refuses before canceling anything: a running run under reject, a waiting one with ifWaiting reject", () => {
    expect(room([waiting, running], "reject")).toEqual({ code: "THREAD_BUSY", canceled: [] });
    expect(room([waiting], "enqueue", "reject")).toEqual({ code: "THREAD_BUSY", canceled: [] });
    expect(room([running], "reject", "reject")).toEqual({ code: "THREAD_BUSY", canceled: [] });
  });

  it("interrupt cancels every unfinished run, waiting or not", () => {
    expect(room([waiting, running], "interrupt", "reject").canceled.map(([id]) => id)).toEqual(["r-wait", "r-run"]);
  });
});
