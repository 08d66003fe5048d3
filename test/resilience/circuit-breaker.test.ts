import { describe, expect, it } from "vitest";
import { StorageError, ToolError } from "../../src/errors.js";
import { CircuitBreaker, CircuitBreakerRegistry, circuitBreakers } from "../../src/resilience/circuit-breaker.js";
import { ManualClock } from "../../src/resilience/clock.js";

const fail = () => Promise.reject(new Error("down"));
const ok = () => Promise.resolve("up");

async function failTimes(breaker: CircuitBreaker, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await expect(breaker.run(fail)).rejects.toThrow("down");
}

describe("CircuitBreaker", () => {
  it("opens after K consecutive failures and then refuses fast without calling", async () => {
    const clock = new ManualClock();
    const breaker = new CircuitBreaker("deploy", { failureThreshold: 3, cooldownMs: 1000, clock });
    await failTimes(breaker, 2);
    expect(breaker.state).toBe("closed");
    await failTimes(breaker, 1);
    expect(breaker.state).toBe("open");
    let called = false;
    const refused = breaker.run(async () => {
      called = true;
    });
    await expect(refused).rejects.toBeInstanceOf(ToolError);
    await expect(refused).rejects.toMatchObject({ code: "CIRCUIT_OPEN", details: { tool: "deploy", retryInMs: 1000 } });
    expect(called).toBe(false);
  });

  it("a success in between resets the count (failures must be consecutive)", async () => {
    const breaker = new CircuitBreaker("t", { failureThreshold: 3 });
    await failTimes(breaker, 2);
    await breaker.run(ok);
    await failTimes(breaker, 2);
    expect(breaker.snapshot()).toMatchObject({ state: "closed", consecutiveFailures: 2 });
  });

  it("half-opens after the cool-down, lets exactly one probe through, closes on success", async () => {
    const clock = new ManualClock();
    const breaker = new CircuitBreaker("t", { failureThreshold: 1, cooldownMs: 1000, clock });
    await failTimes(breaker, 1);
    await clock.advance(999);
    expect(breaker.state).toBe("open");
    await clock.advance(1);
    expect(breaker.state).toBe("half-open");

    let finishProbe!: (v: string) => void;
    const probe = breaker.run(() => new Promise<string>((resolve) => (finishProbe = resolve)));
    await expect(breaker.run(ok)).rejects.toMatchObject({ code: "CIRCUIT_OPEN" });
    finishProbe("up");
    await expect(probe).resolves.toBe("up");
    expect(breaker.snapshot()).toEqual({ state: "closed", consecutiveFailures: 0, openedAt: undefined });
    await expect(breaker.run(ok)).resolves.toBe("up");
  });

  it("a failed probe re-opens for a fresh cool-down", async () => {
    const clock = new ManualClock();
    const breaker = new CircuitBreaker("t", { failureThreshold: 2, cooldownMs: 1000, clock });
    await failTimes(breaker, 2);
    await clock.advance(1000);
    await failTimes(breaker, 1);
    expect(breaker.state).toBe("open");
    expect(breaker.snapshot().openedAt).toBe(1000);
    await clock.advance(999);
    expect(breaker.state).toBe("open");
    await clock.advance(1);
    expect(breaker.state).toBe("half-open");
  });

  it("cancellation counts neither as failure nor as a finished probe", async () => {
    const clock = new ManualClock();
    const breaker = new CircuitBreaker("t", { failureThreshold: 1, cooldownMs: 10, clock });
    const canceled = () => Promise.reject(new ToolError("CANCELED", "run canceled"));
    await expect(breaker.run(canceled)).rejects.toMatchObject({ code: "CANCELED" });
    expect(breaker.state).toBe("closed");
    await failTimes(breaker, 1);
    await clock.advance(10);
    await expect(breaker.run(canceled)).rejects.toMatchObject({ code: "CANCELED" });
    expect(breaker.state).toBe("half-open");
    await expect(breaker.run(ok)).resolves.toBe("up");
    expect(breaker.state).toBe("closed");
  });
  it("a call that fails because its caller's signal aborted (a lost lease, a stopping worker) is no failure", async () => {
    const breaker = new CircuitBreaker("t", { failureThreshold: 1 });
    const controller = new AbortController();
    // The run's lease ran out: the caller aborts with its own reason, which is not a cancellation code.
    const lost = Object.assign(new Error("run r: lease with fencing token 1 lost (lease-expired)"), { code: "LEASE_LOST" });
    controller.abort(lost);
    await expect(breaker.run(() => Promise.reject(lost), controller.signal)).rejects.toBe(lost);
    expect(breaker.state).toBe("closed");
    // The same error from a caller that did not give up is the tool failing.
    await expect(breaker.run(() => Promise.reject(lost), new AbortController().signal)).rejects.toBe(lost);
    expect(breaker.state).toBe("open");
  });
  it("agentrt's own database going away (a restart) is no failure of the tool, however deep the cause", async () => {
    const breaker = new CircuitBreaker("t", { failureThreshold: 1 });
    const lost = new StorageError("DB_CONNECTION_LOST", "connection to PostgreSQL lost (terminating connection due to administrator command)");
    const unreachable = new StorageError("DB_UNREACHABLE", "cannot connect to PostgreSQL (connect ECONNREFUSED)");
    const wrapped = new ToolError("TOOL_FAILED", "get_weather failed", { cause: new Error("world", { cause: lost }) });
    for (const error of [lost, unreachable, wrapped]) {
      await expect(breaker.run(() => Promise.reject(error))).rejects.toBe(error);
      expect(breaker.state).toBe("closed");
    }
    // Any other storage failure is the tool's: the circuit opens.
    const full = new StorageError("STORAGE_FULL", "disk full");
    await expect(breaker.run(() => Promise.reject(full))).rejects.toBe(full);
    expect(breaker.state).toBe("open");
  });
});

describe("CircuitBreakerRegistry", () => {
  it("gives every caller the same breaker per tool name", async () => {
    const registry = new CircuitBreakerRegistry({ failureThreshold: 1 });
    const a = registry.get("deploy");
    expect(registry.get("deploy")).toBe(a);
    expect(registry.get("logs")).not.toBe(a);
    await failTimes(a, 1);
    expect(registry.snapshot()).toMatchObject({ deploy: { state: "open" }, logs: { state: "closed" } });
    registry.clear();
    expect(registry.get("deploy").state).toBe("closed");
  });

  it("exports one process-wide registry", () => {
    expect(circuitBreakers).toBeInstanceOf(CircuitBreakerRegistry);
  });
});
