// Runtime.provideInput on a plain interrupt() graph, and the pieces that map interrupts to questions and resumes.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Command } from "@langchain/langgraph";
import { afterEach, describe, expect, it } from "vitest";
import { Runtime } from "../../src/runtime/index.js";
import { inputCommand, questionOf, readInputRequests } from "../../src/runtime/input-resume.js";
import { runtimeInternals, runtimeSqlite } from "../../src/runtime/internals.js";

const ASK = fileURLToPath(new URL("../fixtures/plain-interrupt/langgraph.json", import.meta.url));
const REPO = fileURLToPath(new URL("../../langgraph.json", import.meta.url));
const opened: Runtime[] = [];

function open(config: string): Runtime {
  const rt = Runtime.open({ db: join(mkdtempSync(join(tmpdir(), "agentrt-input-")), "runs.db"), config });
  opened.push(rt);
  return rt;
}

afterEach(async () => {
  for (const rt of opened.splice(0)) await rt.close();
});

describe("Runtime.provideInput", () => {
  it("resumes a plain interrupt() with the text as its return value", async () => {
    const rt = open(ASK);
    const waiting = await rt.submit({ graph: "ask", input: {}, user: "alice" });
    expect(waiting.input_requests).toEqual([{ interrupt_id: expect.any(String), question: "Which order?", value: { question: "Which order?" } }]);
    const done = await rt.provideInput(waiting.run_id, { text: "ORD-1001", by: "bob" });
    expect(done).toMatchObject({ status: "SUCCEEDED", input_requests: [], result: { answer: "ORD-1001" } });
    expect((await runtimeInternals(rt).runs.events(waiting.run_id)).map((e) => e.to)).toEqual(["QUEUED", "RUNNING", "WAITING_INPUT", "RUNNING", "SUCCEEDED"]);
  });

  it("refuses unknown runs and runs not waiting for input, changing nothing", async () => {
    const rt = open(REPO);
    await expect(rt.provideInput("run_nope", { text: "x" })).rejects.toMatchObject({ code: "UNKNOWN_RUN" });
    const approval = await rt.submit({ graph: "ops_rollback", message: "Why did the payments deploy fail? Roll back if needed.", user: "alice" });
    expect(approval.status).toBe("WAITING_APPROVAL");
    await expect(rt.provideInput(approval.run_id, { text: "yes" })).rejects.toMatchObject({ code: "RUN_NOT_WAITING" });
    expect(await rt.get(approval.run_id)).toEqual(approval);
    const queued = await rt.submit({ graph: "order_delay", message: "Is my order late?", queue: true });
    await expect(rt.provideInput(queued.run_id, { text: "10086" })).rejects.toMatchObject({ code: "RUN_NOT_WAITING" });
    expect((await runtimeInternals(rt).runs.events(queued.run_id)).map((e) => e.to)).toEqual(["QUEUED"]);
  });
});

describe("two answers racing", () => {
  it("one resumes the run, the other is refused with RUN_NOT_WAITING instead of being dropped silently", async () => {
    const first = open(ASK);
    const second = Runtime.open({ db: runtimeSqlite(first).name, config: ASK });
    opened.push(second);
    const waiting = await first.submit({ graph: "ask", input: {} });
    const results = await Promise.allSettled([
      first.provideInput(waiting.run_id, { text: "ORD-1" }),
      second.provideInput(waiting.run_id, { text: "ORD-2" }),
    ]);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(refused.map((r) => (r.reason as { code: string }).code)).toEqual(["RUN_NOT_WAITING"]);
    const after = await first.get(waiting.run_id);
    expect(after.status).toBe("SUCCEEDED");
    expect(["ORD-1", "ORD-2"]).toContain((after.result as { answer: string }).answer);
  });
});

describe("input requests and resumes", () => {
  const task = (interrupts: { id?: string; value?: unknown }[], result?: unknown) => ({ interrupts, result });

  it("reads the live question of each unfinished task and skips approvals", async () => {
    const snapshot = {
      tasks: [
        task([{ id: "i1", value: { question: "Which order?" } }]),
        task([{ id: "i2", value: { action_id: "act_1", args_hash: "h" } }]),
        task([{ id: "i3", value: "done already" }], { ok: true }),
        task([{ id: "i4", value: "first" }, { id: "i5", value: "Still there?" }]),
      ],
    };
    expect(readInputRequests(snapshot).map((r) => [r.interrupt_id, r.question])).toEqual([["i1", "Which order?"], ["i5", "Still there?"]]);
    expect(questionOf({ prompt: "p" })).toBe("p");
    expect(questionOf({ n: 1 })).toBe('{"n":1}');
  });

  it("resumes only a still-live interrupt: an answer consumed before a crash is not sent again", async () => {
    const resume = { kind: "input", interrupt_id: "i1", value: "10086", by: "alice" };
    const live = inputCommand(resume, { tasks: [task([{ id: "i1", value: "Which order?" }])] });
    expect(live).toBeInstanceOf(Command);
    expect(live?.resume).toEqual({ i1: "10086" });
    expect(inputCommand(resume, { tasks: [] })).toBeUndefined();
    expect(inputCommand([{ action_id: "act_1" }], { tasks: [task([{ id: "i1", value: "q" }])] })).toBeUndefined();
  });
});
