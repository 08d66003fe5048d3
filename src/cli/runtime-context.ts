/**
 * Shared plumbing of the run commands: opening the runtime for `--db` and printing progress as it happens
 * (a run itself is printed by print-run.ts).
 * @module
 */
import { accessSync, constants } from "node:fs";
import { dirname, resolve } from "node:path";
import { isPostgresUrl, MEMORY_PATH } from "../db/index.js";
// Loaded only by commands that execute or decide runs (runtime.js brings LangGraph): the read commands start without it.
import type { Runtime, RunSource, RuntimeEvent } from "../runtime/index.js";
import { RunReader } from "../runtime/run-reader.js";
import type { CommandContext } from "./command.js";
import { tenantWeightOptions } from "./tenant-weights.js";

/** How a command opens the runtime. */
export interface OpenRuntimeOptions {
  /** Refuse a missing `--db` file instead of creating it (commands that act on existing runs). @default false */
  mustExist?: boolean;
  /** Also told every runtime event, in human mode and with --json alike (must not throw). @default none */
  onEvent?: (event: RuntimeEvent) => void;
  /** `--tenant-weight` values, added to AGENTRT_TENANT_WEIGHTS's (tenant-weights.ts). @default none */
  tenantWeights?: readonly string[];
}

/** Opens the runtime for a command; progress is printed only in human mode. */
export async function openRuntime(ctx: CommandContext, options: OpenRuntimeOptions = {}): Promise<Runtime> {
  const { Runtime } = await import("../runtime/runtime.js");
  return Runtime.open({
    db: ctx.db,
    mustExist: options.mustExist,
    config: process.env.AGENTRT_CONFIG,
    scheduler: tenantWeightOptions(options.tenantWeights),
    onEvent: (event) => {
      if (!ctx.json) printEvent(ctx, event);
      options.onEvent?.(event);
    },
  });
}

/** Runs `fn` with an open runtime and always closes it. */
export async function withRuntime<T>(
  ctx: CommandContext, fn: (runtime: Runtime) => Promise<T>, options: OpenRuntimeOptions = {},
): Promise<T> {
  const runtime = await openRuntime(ctx, options);
  try {
    return await fn(runtime);
  } finally {
    await runtime.close();
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
  ctx: CommandContext, overdue: (reader: RunReader) => Promise<boolean>, read: (runs: RunSource) => Promise<T>,
): Promise<T> {
  // Nothing to create beside a PostgreSQL schema, and no file to be read-only: read through the runtime.
  if (ctx.db === MEMORY_PATH || ctx.db === "" || isPostgresUrl(ctx.db)) return withExistingRuntime(ctx, async (runtime) => read(runtime));
  const reader = RunReader.open(ctx.db);
  let recordExpiry: boolean;
  try {
    recordExpiry = (await overdue(reader)) && isWritable(ctx.db);
    if (!recordExpiry) return await read(reader);
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
