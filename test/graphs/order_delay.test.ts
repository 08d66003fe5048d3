// order_delay through the real runtime: a delayed order notifies its rep exactly once, an on-time one nobody.
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { Command, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SentMessage } from "../../graphs/sim/index.js";
import { ASK_ORDER_ID, askOrderId, orderIdIn, requestedOrderId, routeAfterAsk } from "../../graphs/order_delay-request.js";
import { openScenarioRuntime, withSimEnv, type ScenarioRuntime } from "./scenario-runtime.js";

let rt: ScenarioRuntime;
beforeEach(() => {
  rt = openScenarioRuntime();
});
afterEach(() => rt.close());

const messages = async () => Object.values((await rt.world()).systems.messaging ?? {}) as SentMessage[];
const submit = (message: string) => rt.runtime.submit({ graph: "order_delay", message, user: "alice" });

describe("order_delay", () => {
  it("notifies the sales rep of delayed order 10086 with one message", async () => {
    const run = await submit("Check order 10086; if it is delayed, notify the sales rep.");
    expect(run.status).toBe("SUCCEEDED");
    expect(run.result).toMatch(/Order 10086 .* is delayed .*notified the sales rep Wang Fang/);
    const sent = await messages();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ to: "rep_wang", channel: "chat" });
    expect(sent[0]!.text).toContain("2026-05-16");
    expect((await rt.world()).calls).toEqual({ get_order: 1, get_sales_rep: 1, send_message: 1 });
  });

  it("sends nothing for an on-time order", async () => {
    const run = await submit("Check order 10087; if it is delayed, notify the sales rep.");
    expect(run.status).toBe("SUCCEEDED");
    expect(run.result).toMatch(/on time.*no notification/);
    expect(await messages()).toHaveLength(0);
    expect((await rt.world()).calls).toEqual({ get_order: 1 });
  });

  it("asks for the order number when the request has none (WAITING_INPUT, no tool, no model call), then continues with the answer", async () => {
    const run = await submit("Is my order late? Tell the rep if it is.");
    expect(run.status).toBe("WAITING_INPUT");
    expect(run.input_requests).toEqual([expect.objectContaining({ question: expect.stringMatching(/Which order .*order number/) })]);
    expect(run.usage.model_calls).toBe(0);
    expect((await rt.world()).calls).toEqual({});
    const answered = await rt.runtime.provideInput(run.run_id, { text: "It is order 10086." });
    expect(answered.status).toBe("SUCCEEDED");
    expect(answered.result).toMatch(/Order 10086 .* is delayed .*notified the sales rep Wang Fang/);
    expect((await rt.world()).calls).toEqual({ get_order: 1, get_sales_rep: 1, send_message: 1 });
  });

  it("asks again when the answer names no order, and never calls a tool meanwhile", async () => {
    const run = await submit("Is my order late?");
    const vague = await rt.runtime.provideInput(run.run_id, { text: "the one from last week" });
    expect(vague.status).toBe("WAITING_INPUT");
    expect(vague.input_requests[0]?.question).toMatch(/could not find an order number/);
    expect((await rt.world()).calls).toEqual({});
    const done = await rt.runtime.provideInput(run.run_id, { text: "#10087" });
    expect(done.status).toBe("SUCCEEDED");
    expect(done.result).toMatch(/Order 10087 .* on time/);
  });

  it("asks again after transient faults and still sends exactly one message", async () => {
    const run = await withSimEnv({ AGENTRT_SIM_FAULTS: "get_order:1,send_message:2" }, () => submit("Check order 10086 and notify the rep if late."));
    expect(run.status).toBe("SUCCEEDED");
    expect(run.result).toMatch(/notified the sales rep/);
    expect((await rt.world()).failures).toEqual({ get_order: 1, send_message: 2 });
    expect(await messages()).toHaveLength(1);
  });

  it("answers honestly when the tool keeps failing", async () => {
    const run = await withSimEnv({ AGENTRT_SIM_FAULTS: "get_order:9" }, () => submit("Check order 10086"));
    expect(run.status).toBe("SUCCEEDED");
    expect(run.result).toMatch(/could not look up order 10086: get_order failed/);
    expect((await rt.world()).failures).toEqual({ get_order: 3 });
    expect(await messages()).toHaveLength(0);
  });

  it("reads order numbers written in several ways", () => {
    expect(orderIdIn("order #10086 please")).toBe("10086");
    expect(orderIdIn("订单 10086 延迟了吗")).toBe("10086");
    expect(orderIdIn("my order")).toBeUndefined();
    expect(requestedOrderId([new HumanMessage("order 10086"), new AIMessage("ok"), new HumanMessage("no, 10087")])).toBe("10087");
    expect(requestedOrderId([new HumanMessage("order 10086"), new HumanMessage("thanks")])).toBe("10086");
  });

  it("keeps the question actually asked in the conversation, the re-ask included", async () => {
    const asker = new StateGraph(MessagesAnnotation)
      .addNode(ASK_ORDER_ID, askOrderId)
      .addEdge(START, ASK_ORDER_ID)
      .addConditionalEdges(ASK_ORDER_ID, routeAfterAsk(END), [ASK_ORDER_ID, END])
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "ask" } };
    await asker.invoke({ messages: [new HumanMessage("Is my order late?")] }, config);
    await asker.invoke(new Command({ resume: "the one from last week" }), config);
    const out = await asker.invoke(new Command({ resume: "#10087" }), config);
    const asked = out.messages.filter((m) => m instanceof AIMessage).map((m) => m.text);
    expect(asked).toHaveLength(2);
    expect(asked[0]).toMatch(/^Which order/);
    expect(asked[1]).toMatch(/^I could not find an order number in your answer\. Which order/);
  });
});
