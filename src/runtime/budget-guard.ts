/**
 * The budget guard: the runtime's {@link RunGuard} for one claimed run: budgets checked before
 * each model call against the run's stored usage (so they count across
 * attempts and resumes) plus the call about to be made, the wall-clock
 * deadline also before each tool attempt, and RETRYING shown while a tool
 * backs off in this process (the lease stays held).
 * @module
 */
import { estimateTokens } from "../graph/context-budget.js";
import type { ModelCallRequest, RunGuard } from "../graph/run-guard.js";
import type { AgentStopError } from "../graph/state.js";
import { BudgetExceededError, describeExhausted, exhaustedBudget, passedDeadline, type RunLease, type RunRecord } from "../runs/index.js";
import { priceFor, type PricingTable } from "../trace/index.js";
import type { RuntimeListener } from "./runtime-events.js";

/** What the guard needs besides the run and its lease. */
export interface BudgetGuardDeps {
  pricing: PricingTable;
  emit: RuntimeListener;
  /** @default Date.now */
  clock?: () => number;
}

/** Builds the guard `executeRun` passes as `config.context.guard`. */
export function createBudgetGuard(run: RunRecord, lease: RunLease, deps: BudgetGuardDeps): RunGuard {
  const clock = deps.clock ?? Date.now;
  const budget = run.budget;
  const limited = Object.keys(budget).length > 0;
  // The run's first start: the deadline spans attempts, resumes and waits.
  const startedAt = run.startedAt ?? run.createdAt;
  let backingOff = 0;

  const setStatus = (to: "RETRYING" | "RUNNING", reason: string) => {
    // In call order: each lease write starts at once (the backoff flag is set before it returns).
    (to === "RETRYING" ? lease.startBackoff(reason) : lease.endBackoff(reason)).then(
      (after) => {
        if (after.status === to) deps.emit({ type: "status", runId: run.runId, status: to });
      },
      () => {
        // A lost lease has already aborted the run's signal, which ends the backoff; nothing else to do here.
      },
    );
  };

  return {
    async beforeModelCall(request: ModelCallRequest): Promise<AgentStopError | undefined> {
      if (!limited) return undefined;
      const late = passedDeadline(budget, startedAt, clock());
      if (late !== undefined) return { code: late.code, message: describeExhausted(late) };
      // The stored counters (every attempt so far), read under the lease: a holder that lost it must not call the model.
      const usage = (await lease.check()).usage;
      const inputTokens = estimateTokens(request.messages);
      const next = { steps: 1, modelCalls: 1, tokens: inputTokens, costUsd: priceFor(request.model, { inputTokens, outputTokens: 0 }, deps.pricing).totalUsd };
      const exhausted = exhaustedBudget(usage, budget, next);
      return exhausted === undefined ? undefined : { code: exhausted.code, message: describeExhausted(exhausted) };
    },
    deadline() {
      const max = budget.deadlineMs;
      if (max === undefined) return undefined;
      return {
        at: startedAt + max,
        stop: () => {
          const late = passedDeadline(budget, startedAt, Math.max(clock(), startedAt + max))!;
          return { code: late.code, message: `${describeExhausted(late)}; the model call in flight was cut` };
        },
      };
    },
    beforeToolAttempt() {
      const late = limited ? passedDeadline(budget, startedAt, clock()) : undefined;
      return late === undefined ? undefined : new BudgetExceededError(late);
    },
    backoffStarted(event) {
      if (backingOff++ === 0) setStatus("RETRYING", `${event.tool} attempt ${event.attempt} failed; next attempt in ${event.delayMs} ms`);
    },
    backoffEnded(event) {
      if (backingOff > 0 && --backingOff === 0) setStatus("RUNNING", `${event.tool} attempt ${event.attempt} starts`);
    },
    assertHeld(tx) {
      // Throws LeaseLostError (and aborts the run's signal) when another worker took the run or it was canceled.
      return lease.assertHeldIn(tx);
    },
  };
}
