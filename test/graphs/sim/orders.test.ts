import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkInventory, checkLogistics, getOrder, getSalesRep, openWorld, sendMessage } from "../../../graphs/sim/index.js";
import { simHarness, type SimHarness } from "./sim-context.js";

describe("simulated orders and messaging", () => {
  let h: SimHarness;
  beforeEach(() => {
    h = simHarness();
  });
  afterEach(() => h.close());

  it("has order 10086 delayed and the others on time", async () => {
    await expect(h.call(getOrder, { order_id: "10086" })).resolves.toMatchObject({ found: true, status: "delayed", expectedDelivery: "2026-05-16" });
    for (const id of ["10087", "10088", "20001"]) {
      await expect(h.call(getOrder, { order_id: id })).resolves.toMatchObject({ found: true, status: "on_time" });
    }
    await expect(h.call(getOrder, { order_id: "99999" })).resolves.toMatchObject({ found: false });
  });

  it("finds the rep, stock and shipment of an order", async () => {
    await expect(h.call(getSalesRep, { order_id: "10086" })).resolves.toMatchObject({ repId: "rep_wang", name: "Wang Fang" });
    await expect(h.call(checkInventory, { order_id: "10086" })).resolves.toMatchObject({
      allInStock: false, items: [{ sku: "SKU-PRN-220", sufficient: false }, { sku: "SKU-PAP-080", sufficient: true }],
    });
    await expect(h.call(checkLogistics, { order_id: "10086" })).resolves.toMatchObject({ status: "held_at_hub", location: "Shanghai hub" });
  });

  it("stores each message once per idempotency key", async () => {
    const args = { to: "rep_wang", text: "Order 10086 is delayed to 2026-05-16." };
    const first = await h.call(sendMessage, args, "run_2:call_msg:1");
    await h.call(sendMessage, args, "run_2:call_msg:1");
    const second = await h.call(sendMessage, { ...args, channel: "email" }, "run_3:call_msg:1");
    expect(first).toEqual({ delivered: true, messageId: "msg_0001", operationId: "op_messaging_1", to: "rep_wang", channel: "chat" });
    expect(second).toMatchObject({ messageId: "msg_0002", operationId: "op_messaging_2", channel: "email" });
    const snapshot = await (await openWorld({ db: h.db })).snapshot();
    expect(snapshot.calls).toEqual({ send_message: 2 });
    expect(Object.keys(snapshot.systems.messaging!)).toEqual(["message:msg_0001", "message:msg_0002"]);
  });
});
