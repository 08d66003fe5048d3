/**
 * A run as the run commands print it (`run`, `approve`, `reject`, `input`, `status`, `cancel`): one JSON object
 * with --json, else its status and what to do next — the commands that decide a pending action or answer a
 * question, or how to start the worker a queued run waits for.
 * @module
 */
import { displayDatabase } from "../db/index.js";
import type { RunView } from "../runtime/index.js";
import type { CommandContext } from "./command.js";
import { defaultDatabase } from "./default-database.js";
import { cliPrefix } from "./invocation.js";

// A script checking `$?` must not read an expired or canceled run as done.
const UNSUCCESSFUL: ReadonlySet<string> = new Set(["FAILED", "EXPIRED", "CANCELED"]);

/**
 * Prints a run (one JSON object with --json) and returns the exit code: 1 when it ended without
 * success (FAILED, EXPIRED, CANCELED), else 0 — waiting counts as success. `notes` follow the status line.
 */
export function printRun(ctx: CommandContext, view: RunView, notes: readonly string[] = []): number {
  if (ctx.json) {
    ctx.out(JSON.stringify(view));
    return UNSUCCESSFUL.has(view.status) ? 1 : 0;
  }
  ctx.out(`run ${view.run_id} (${view.graph}) thread ${view.thread_id}: ${view.status}`);
  // Said as the user ran this CLI, so each command printed below pastes as it is.
  const cli = cliPrefix();
  for (const note of notes) ctx.out(`  ${note}`);
  for (const action of view.pending) {
    ctx.out(`  waiting for approval: ${action.tool} ${JSON.stringify(action.args)}`);
    // A side effect that may or may not have happened: the person must know what approving does.
    if (action.reason?.startsWith("outcome unknown") === true) ctx.out(`    ${action.reason}`);
    const decide = `${view.run_id} --action ${action.action_id} --args-hash ${action.args_hash}${dbFlag(ctx)}`;
    ctx.out(`    approve: ${cli} approve ${decide}`);
    ctx.out(`    reject:  ${cli} reject ${decide}`);
  }
  for (const request of view.input_requests) {
    ctx.out(`  waiting for input: ${request.question}`);
    ctx.out(`    answer: ${cli} input ${view.run_id} --text "<answer>"${dbFlag(ctx)}`);
  }
  if (view.status === "QUEUED") {
    // Nothing runs a queued run but a worker (or a server with --workers): say so, or the user waits for nothing.
    ctx.out(`  a worker runs it: start one with ${cli} worker${dbFlag(ctx)} (or ${cli} worker --once${dbFlag(ctx)} to run what is queued, then exit)`);
  }
  if (view.wait_expires_at !== null) ctx.out(`  the wait expires at ${view.wait_expires_at}`);
  if (view.error !== null) ctx.out(`  error ${view.error.code}: ${view.error.message}`);
  printSideEffects(ctx, view.side_effects ?? []);
  if (view.status === "SUCCEEDED" && view.result !== null) ctx.out(`  answer: ${answerText(view.result)}`);
  ctx.out(`  usage: ${view.usage.model_calls} model calls, ${view.usage.tokens} tokens, $${view.usage.cost_usd.toFixed(6)}`);
  return UNSUCCESSFUL.has(view.status) ? 1 : 0;
}

/** A run's result as text: a string as it is, anything else as JSON. */
export function answerText(result: unknown): string {
  return typeof result === "string" ? result : JSON.stringify(result);
}

/**
 * ` --db PATH` when the database is not the one a command finds without it, for commands printed to be copied;
 * a URL's password is shown as `***` (never printed), so such a command needs it put back or AGENTRT_DATABASE_URL.
 */
export function dbFlag(ctx: CommandContext): string {
  return ctx.db === defaultDatabase() ? "" : ` --db ${shellWord(displayDatabase(ctx.db))}`;
}

/** `word` as the shell reads it back: quoted when it holds anything but plain path and URL characters (a URL's `?`, `&`). */
function shellWord(word: string): string {
  return /^[\w./:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
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
