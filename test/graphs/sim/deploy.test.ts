import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openWorld, queryLogs, rollbackDeployment, getDeployment, verifyDeployment } from "../../../graphs/sim/index.js";
import { simHarness, type SimHarness } from "./sim-context.js";

describe("simulated deploy platform and logs", () => {
  let h: SimHarness;
  beforeEach(() => {
    h = simHarness();
  });
  afterEach(() => h.close());

  it("shows the failed payments deploy and the log line that justifies a rollback", async () => {
    const deployment = await h.call<{ status: string; currentRevision: string; previousHealthyRevision: string }>(getDeployment, { service: "payments" });
    expect(deployment).toMatchObject({ status: "failed", currentRevision: "rev-185", previousHealthyRevision: "rev-184" });
    const logs = await h.call<{ entries: Array<{ level: string; message: string }> }>(queryLogs, { service: "payments", level: "error" });
    expect(logs.entries.length).toBeGreaterThan(0);
    expect(logs.entries.every((e) => e.level === "error")).toBe(true);
    expect(logs.entries[0]!.message).toMatch(/deploy marked failed.*rev-184/);
    const healthy = await h.call<{ status: string }>(getDeployment, { service: "checkout" });
    expect(healthy.status).toBe("healthy");
  });

  it("recovers only after a rollback, performed once per idempotency key", async () => {
    await expect(h.call(verifyDeployment, { service: "payments" })).resolves.toMatchObject({ healthy: false, recovered: false });

    const args = { service: "payments", target_revision: "rev-184" };
    const first = await h.call(rollbackDeployment, args, "run_1:call_rb:1");
    const replay = await h.call(rollbackDeployment, args, "run_1:call_rb:1");
    expect(first).toEqual({ operationId: "op_deploy_1", service: "payments", fromRevision: "rev-185", toRevision: "rev-184", status: "completed" });
    expect(replay).toEqual(first);
    expect(h.opIds).toEqual(["op_deploy_1", "op_deploy_1"]);

    await expect(h.call(verifyDeployment, { service: "payments" })).resolves.toMatchObject({ healthy: true, recovered: true, revision: "rev-184" });
    const snapshot = await (await openWorld({ db: h.db })).snapshot();
    expect(snapshot.calls).toMatchObject({ rollback_deployment: 1, verify_deployment: 2 });
    expect(snapshot.systems.deploy!["service:payments"]).toMatchObject({
      status: "rolled_back", currentRevision: "rev-184", rollbacks: [{ operationId: "op_deploy_1", from: "rev-185", to: "rev-184" }],
    });
  });

  it("refuses a rollback to the running revision or an unknown service without counting it", async () => {
    await expect(h.call(rollbackDeployment, { service: "payments", target_revision: "rev-185" })).rejects.toMatchObject({ code: "TOOL_ARGS_INVALID" });
    await expect(h.call(getDeployment, { service: "billing" })).rejects.toThrow(/known services: checkout, payments, search/);
    expect((await (await openWorld({ db: h.db })).snapshot()).calls).toEqual({});
  });
});
