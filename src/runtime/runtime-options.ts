/**
 * The options and views of the {@link Runtime} facade's calls.
 * @module
 */
import type { RunBudget, RunGraphConfig, SchedulerOptions } from "../runs/index.js";
import type { RunView } from "./run-view.js";
import type { RuntimeListener } from "./runtime-events.js";
import type { SideEffectView } from "./side-effects.js";
import type { RunStreamSink } from "./run-stream-sink.js";

/** How to open a {@link Runtime}. */
export interface RuntimeOptions {
  /** SQLite file for runs, checkpoints, traces and memory. @default "./agentrt.db" */
  db?: string;
  /** The langgraph.json that lists the graphs. @default "./langgraph.json" */
  config?: string;
  /** Lease duration for runs this process executes. @default env AGENTRT_LEASE_MS, else 30000 */
  leaseMs?: number;
  /** Identity written as lease owner. @default a random id per runtime */
  workerId?: string;
  /** Receives progress events of runs this process executes. @default none */
  onEvent?: RuntimeListener;
  /** Global and per-user caps on RUNNING runs. @default none */
  scheduler?: SchedulerOptions;
  /** Publishes live stream chunks of runs executed here (for SSE). @default none on SQLite; the shared chunk log on PostgreSQL */
  streams?: RunStreamSink;
  /** Fail with a StorageError instead of creating a missing database file. @default false */
  mustExist?: boolean;
}

/** What to start; see {@link Runtime.submit}. */
export interface SubmitOptions {
  /** Graph id from langgraph.json. */
  graph: string;
  /** A user message; becomes `{ messages: [{ role: "user", content }] }`. */
  message?: string;
  /** The graph's input as-is (instead of `message`). */
  input?: unknown;
  /** @default a new thread per run */
  threadId?: string;
  /** Who the run acts for. @default "anonymous" */
  user?: string;
  /** Higher is claimed first. @default 0 */
  priority?: number;
  /** Leave it QUEUED for a worker instead of running it here. @default false */
  queue?: boolean;
  /** Step, model-call, token and cost limits. @default none */
  budget?: RunBudget;
  /** Longest an approval or input wait may last before the run is EXPIRED. @default env AGENTRT_WAIT_TTL_MS, else forever */
  waitTtlMs?: number;
  /** Extra `configurable` keys (not the run's own ids) and LangGraph's recursion limit for the graph. @default none */
  config?: RunGraphConfig;
  /** Free-form JSON kept with the run. @default {} */
  metadata?: Record<string, unknown>;
  /**
   * A retried submit with this key (same user, same options) returns the first run as it is now instead of starting
   * a second, for 24 hours; the key with other options is IDEMPOTENCY_KEY_REUSED. @default none
   */
  idempotencyKey?: string;
}

/** An answer to a run waiting for input; see {@link Runtime.provideInput}. */
export interface InputOptions {
  /** The answer; it is what the graph's `interrupt()` returns. */
  text: string;
  /** Who answers. @default the run's user */
  by?: string;
  /** Store the answer and leave the run QUEUED for a worker instead of resuming it here. @default false */
  queue?: boolean;
}

/** A canceled run with the side effects it had already performed (they stay done). */
export interface CanceledRunView extends RunView {
  side_effects: SideEffectView[];
}

/** A decision on one pending action; see {@link Runtime.approve}. */
export interface DecisionOptions {
  actionId: string;
  argsHash: string;
  /** Who decides. @default the run's user */
  by?: string;
  /** Roles of the decider, for "role:NAME" approvers. @default [] */
  roles?: string[];
  /** Kept with the decision; shown to the model on reject. */
  reason?: string;
  /**
   * Approve with these arguments instead of the model's (an edit): checked against the tool's schema, judged by
   * policy again, and run under a new args_hash and idempotency key. Only with approve.
   */
  editedArgs?: Record<string, unknown>;
  /** Store the decision and leave the run QUEUED for a worker instead of resuming it here. @default false */
  queue?: boolean;
}

/** How {@link Runtime.decide} and {@link Runtime.answer} apply a checked resume. */
export interface ResumeOptions {
  /** Store it and leave the run QUEUED instead of resuming it here. @default false */
  queue?: boolean;
  /** With `queue`: for this long only a claim by id ({@link Runtime.start}) takes the run, not a worker. @default 0 */
  holdMs?: number;
}
