// The worker → server messages are read defensively: anything malformed on the channel is ignored, not trusted.
import { describe, expect, it } from "vitest";
import { parseFromWorker } from "../../src/server/worker-ipc.js";

describe("messages from worker processes", () => {
  it("keeps a rest's final values only when they are an object", () => {
    const values = { messages: [{ type: "ai", content: "done" }], result: "done" };
    expect(parseFromWorker({ type: "rest", runId: "r1", status: "SUCCEEDED", values })).toEqual({ type: "rest", runId: "r1", status: "SUCCEEDED", values });
    expect(parseFromWorker({ type: "rest", runId: "r1", status: "WAITING_APPROVAL" })).toEqual({ type: "rest", runId: "r1", status: "WAITING_APPROVAL" });
    for (const bad of [[1, 2], "values", null, 3]) {
      expect(parseFromWorker({ type: "rest", runId: "r1", status: "SUCCEEDED", values: bad })).toEqual({ type: "rest", runId: "r1", status: "SUCCEEDED" });
    }
  });

  it("reads a storage stall only with a storage code and a fencing token", () => {
    const stall = { type: "stalled", runId: "r1", fencingToken: 2, code: "STORAGE_FULL", message: "database or disk is full" };
    expect(parseFromWorker(stall)).toEqual(stall);
    expect(parseFromWorker({ ...stall, code: "INTERNAL" })).toBeUndefined();
    expect(parseFromWorker({ ...stall, fencingToken: "2" })).toBeUndefined();
    expect(parseFromWorker({ ...stall, message: 5 })).toEqual({ ...stall, message: "" });
  });

  it("ignores unknown statuses and message types", () => {
    expect(parseFromWorker({ type: "rest", runId: "r1", status: "DONE" })).toBeUndefined();
    expect(parseFromWorker({ type: "values", runId: "r1" })).toBeUndefined();
    expect(parseFromWorker("rest")).toBeUndefined();
  });
});
