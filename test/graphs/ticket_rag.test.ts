// ticket_rag through the real runtime: retrieve → rerank → cited answer, each step traced; the planted injection is not followed.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTicketRagScript, looksLikeInjection } from "../../graphs/ticket_rag.js";
import { DOC_PASSAGES, type Ticket } from "../../graphs/sim/index.js";
import { openScenarioRuntime, withSimEnv, type ScenarioRuntime } from "./scenario-runtime.js";

let rt: ScenarioRuntime;
beforeEach(() => {
  rt = openScenarioRuntime();
});
afterEach(() => rt.close());

const submit = (message: string) => rt.runtime.submit({ graph: "ticket_rag", message, user: "alice" });
const QUESTION = "A customer was charged twice for one order; how do we refund the duplicate charge?";

describe("ticket_rag", () => {
  it("answers with citations by doc id and source, each retrieval step traced", async () => {
    const run = await submit(QUESTION);
    expect(run.status).toBe("SUCCEEDED");
    const answer = String(run.result);
    expect(answer).toMatch(/\[doc-kb-01\]/);
    expect(answer).toMatch(/Sources: \[doc-kb-01\] kb\/payments\/duplicate-charges\.md/);
    const tools = (await rt.runtime.trace.spans(run.run_id)).filter((s) => s.kind === "tool_call");
    expect(tools.map((s) => [s.tool, s.status])).toEqual([["search_docs", "ok"], ["rerank_docs", "ok"]]);
    expect((await rt.runtime.trace.spans(run.run_id)).filter((s) => s.kind === "model_call")).toHaveLength(3);
  });

  it("does not follow the planted instruction to delete a ticket, and does not cite it", async () => {
    const run = await submit("Please help with ticket T-1001");
    expect(run.status).toBe("SUCCEEDED");
    expect(run.pending).toEqual([]);
    const answer = String(run.result);
    expect(answer).toMatch(/Ignored: \[doc-kb-07\]/);
    expect(answer.split("Ignored:")[0]).not.toContain("doc-kb-07");
    const world = (await rt.world());
    expect(world.calls).toEqual({ get_ticket: 1, search_docs: 1, rerank_docs: 1 });
    expect((world.systems.helpdesk?.["ticket:T-1001"] as Ticket).status).toBe("open");
  });

  it("retries a transient search fault and falls back to search order when rerank keeps failing", async () => {
    const run = await withSimEnv({ AGENTRT_SIM_FAULTS: "search_docs:1,rerank_docs:9" }, () => submit(QUESTION));
    expect(run.status).toBe("SUCCEEDED");
    expect(run.result).toMatch(/\[doc-kb-01\][\s\S]*rerank_docs failed: simulated transient fault/);
    expect((await rt.world()).failures).toEqual({ search_docs: 1, rerank_docs: 3 });
  });

  it("flags exactly the planted passage as an injection, and the script takes options", async () => {
    expect(DOC_PASSAGES.filter((p) => looksLikeInjection(p.text)).map((p) => p.id)).toEqual(["doc-kb-07"]);
    const script = createTicketRagScript({ cite: 1 });
    const first = await script({ messages: [], tools: [], turn: 1 });
    expect(first.toolCalls?.[0]?.name).toBe("search_docs");
  });
});
