// Over HTTP, a run paused by a plain interrupt() (order_delay without an order number) resumes with `command: { resume: "text" }`.
import { describe, expect, it } from "vitest";
import { graphEntry, testServerForFile } from "./harness.js";

// The offline scripted model, whatever this shell has set.
delete process.env.OPENAI_API_KEY;
const ctx = testServerForFile({}, { order_delay: graphEntry("order_delay") });

describe("input over HTTP", () => {
  it("asks for the order number, then resumes with a plain string", async () => {
    const thread = await ctx.client.threads.create();
    const asked = (await ctx.client.runs.wait(thread.thread_id, "order_delay", { input: { messages: [{ role: "user", content: "Is my order late?" }] } })) as {
      __interrupt__?: { value: unknown; id: string }[];
    };
    // As for an approval: the waiting run's answer carries the question, so an SDK app knows it must answer.
    expect(JSON.stringify(asked.__interrupt__)).toContain("Which order should I check?");
    expect((await ctx.client.threads.get(thread.thread_id)).status).toBe("interrupted");
    const waiting = await ctx.client.threads.getState(thread.thread_id);
    expect(JSON.stringify(waiting.tasks)).toContain("Which order should I check?");

    const done = (await ctx.client.runs.wait(thread.thread_id, "order_delay", { command: { resume: "order 10086" } })) as { result?: string };
    expect(done.result).toMatch(/Order 10086 .* is delayed/);
    expect((await ctx.client.threads.get(thread.thread_id)).status).toBe("idle");
    expect((await ctx.client.runs.list(thread.thread_id)).map((r) => r.status)).toEqual(["success"]);
  });
});
