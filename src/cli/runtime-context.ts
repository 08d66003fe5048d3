/**
 * Shared plumbing of the run commands: opening the runtime for `--db`,
 * printing progress as it happens, and printing a run the same way
 * everywhere (`run`, `approve`, `status`).
 * @module
 */
import { accessSync, constants } from "node:fs";
import { dirname, resolve } from "node:path";
import { MEMORY_PATH } from "../db/index.js";
import { RunReader, Runtime, type RunSource, type RunView, type RuntimeEvent } from "../runtime/index.js";
import type { CommandContext } from "./command.js";

/** How a command opens the runtime. */
export interface OpenRuntimeOptions {
  /** Refuse a missing `--db` file instead of creating it (commands that act on existing runs). @default false */
  mustExist?: boolean;
}

/** Opens the runtime for a command; progress is printed only in human mode. */
export function openRuntime(ctx: CommandContext, options: OpenRuntimeOptions = {}): Runtime {
  return Runtime.open({
    db: ctx.db,
    mustExist: options.mustExist,
    config: process.env.AGENTRT_CONFIG,
    onEvent: ctx.json ? undefined : (event) => printEvent(ctx, event),
  });
}

/** Runs `fn` with an open runtime and always closes it. */
export async function withRuntime<T>(
  ctx: CommandContext, fn: (runtime: Runtime) => Promise<T>, options: OpenRuntimeOptions = {},
): Promise<T> {
  const runtime = openRuntime(ctx, options);
  try {
    return await fn(runtime);
  } finally {
    runtime.close();
  }
}

/** {@link withRuntime} for commands that only act on existing runs: a mistyped `--db` fails (exit 2) and creates nothing. */
export function withExistingRuntime<T>(ctx: CommandContext, fn: (runtime: Runtime) => Promise<T>): Promise<T> {
  return withRuntime(ctx, fn, { mustExist: true });
}

/**
 * Runs `read` on the runs of `--db` without writing anything (so a read-only file or directory works; nothing
 * is created beside the file): `runs` and `status`. Only when a wait it would show is past its TTL (`overdue`)
 * and the file can be written does it read through the full runtime instead, which records the expiry first
 * (EXPIRED, with its trace) as it always has; on a file it cannot write, such a run is shown as stored.
 */
export async function withRunSource<T>(
  ctx: CommandContext, overdue: (reader: RunReader) => boolean, read: (runs: RunSource) => T,
): Promise<T> {
  if (ctx.db === MEMORY_PATH || ctx.db === "") return withExistingRuntime(ctx, async (runtime) => read(runtime));
  const reader = RunReader.open(ctx.db);
  let recordExpiry: boolean;
  try {
    recordExpiry = overdue(reader) && isWritable(ctx.db);
    if (!recordExpiry) return read(reader);
  } finally {
    reader.close();
  }
  return withExistingRuntime(ctx, async (runtime) => read(runtime));
}

/** True when the file can be written and its directory can take the -wal and -shm files a writer needs. */
function isWritable(file: string): boolean {
  try {
    // access() also reports an immutable file (chattr +i) or a read-only mount, which root could not write either.
    accessSync(file, constants.W_OK);
    accessSync(dirname(resolve(file)), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Prints a run (one JSON object with --json) and returns the exit code: 1 when it ended without
 * success (FAILED, EXPIRED, CANCELED), else 0 — waiting counts as success.
 */
export function printRun(ctx: CommandContext, view: RunView): number {
  if (ctx.json) {
    ctx.out(JSON.stringify(view));
  } else {
    ctx.out(`run ${view.run_id} (${view.graph}) thread ${view.thread_id}: ${view.status}`);
    for (const action of view.pending) {
      ctx.out(`  waiting for approval: ${action.tool} ${JSON.stringify(action.args)}`);
      // A side effect that may or may not have happened: the person must know what approving does.
      if (action.reason?.startsWith("outcome unknown") === true) ctx.out(`    ${action.reason}`);
      ctx.out(`    approve: agentrt approve ${view.run_id} --action ${action.action_id} --args-hash ${action.args_hash}${dbFlag(ctx)}`);
      ctx.out(`    reject:  agentrt approve ${view.run_id} --action ${action.action_id} --args-hash ${action.args_hash} --reject${dbFlag(ctx)}`);
    }
    for (const request of view.input_requests) {
      ctx.out(`  waiting for input: ${request.question}`);
      ctx.out(`    answer: agentrt input ${view.run_id} --text "<answer>"${dbFlag(ctx)}`);
    }
    if (view.wait_expires_at !== null) ctx.out(`  the wait expires at ${view.wait_expires_at}`);
    if (view.error !== null) ctx.out(`  error ${view.error.code}: ${view.error.message}`);
    printSideEffects(ctx, view.side_effects ?? []);
    if (view.status === "SUCCEEDED" && view.result !== null) {
      ctx.out(`  answer: ${typeof view.result === "string" ? view.result : JSON.stringify(view.result)}`);
    }
    ctx.out(`  usage: ${view.usage.model_calls} model calls, ${view.usage.tokens} tokens, $${view.usage.cost_usd.toFixed(6)}`);
  }
  return UNSUCCESSFUL.has(view.status) ? 1 : 0;
}

/** What an unsuccessful run did that stays done, and what it may have done (issued, outcome not recorded). */
function printSideEffects(ctx: CommandContext, effects: NonNullable<RunView["side_effects"]>): void {
  const done = effects.filter((e) => e.status === "done");
  const unknown = effects.filter((e) => e.status === "unknown");
  if (done.length > 0) ctx.out("  side effects already performed (they stay done):");
  for (const e of done) ctx.out(`    ${e.tool} (call ${e.tool_call_id}${e.external_operation_id === null ? "" : `, operation ${e.external_operation_id}`})`);
  if (unknown.length > 0) ctx.out("  side effects issued without a recorded outcome (check them):");
  for (const e of unknown) ctx.out(`    ${e.tool} (call ${e.tool_call_id}, key ${e.idempotency_key})`);
}

// A script checking `$?` must not read an expired or canceled run as done.
const UNSUCCESSFUL: ReadonlySet<string> = new Set(["FAILED", "EXPIRED", "CANCELED"]);

function dbFlag(ctx: CommandContext): string {
  return ctx.db === "./agentrt.db" ? "" : ` --db ${ctx.db}`;
}

function printEvent(ctx: CommandContext, event: RuntimeEvent): void {
  switch (event.type) {
    case "status":
      if (event.status === "RUNNING") ctx.out(`▶ run ${event.runId} running`);
      return;
    case "model_call":
      ctx.out(`  model turn ${event.turn} (${event.model}): ${event.inputTokens} in / ${event.outputTokens} out tokens, ${event.ms} ms`);
      return;
    case "tool_call": {
      const op = event.externalOperationId === undefined ? "" : ` op ${event.externalOperationId}`;
      const error = event.error === undefined ? "" : `: ${event.error}`;
      ctx.out(`    ${event.status === "done" ? "✓" : "✗"} ${event.tool} ${event.status} in ${event.ms} ms${op}${error}`);
      return;
    }
    case "tool_retry":
      ctx.out(`    ↻ ${event.tool} attempt ${event.attempt} failed; retrying in ${event.delayMs} ms`);
      return;
    case "approval_requested":
      ctx.out(`  ⏸ ${event.action.tool} needs approval (${event.action.reason ?? "policy"})`);
      return;
  }
}
