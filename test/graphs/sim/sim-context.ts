// Shared helpers for the simulated-system tests: a temp run database and a ToolContext like agentrt builds.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentTool, type ToolContext } from "agentrt";
import { openDatabase, type SqliteDatabase } from "agentrt/db";

export interface SimHarness {
  db: SqliteDatabase;
  /** Operation ids reported through setExternalOperationId, in order. */
  opIds: string[];
  /** Validates args like the executor and calls the tool; `key` is the idempotency key. */
  call<R>(tool: AgentTool, args: unknown, key?: string): Promise<R>;
  close(): void;
}

let counter = 0;

export function simHarness(): SimHarness {
  const dir = mkdtempSync(join(tmpdir(), "agentrt-graphs-sim-"));
  const db = openDatabase(join(dir, "run.db"));
  const opIds: string[] = [];
  return {
    db,
    opIds,
    async call<R>(tool: AgentTool, args: unknown, key?: string): Promise<R> {
      const toolCallId = `call_${++counter}`;
      const ctx: ToolContext = {
        runId: "run_test", threadId: "thread_test", toolCallId, user: "tester", attempt: 1,
        idempotencyKey: key ?? `run_test:${toolCallId}:1`,
        signal: new AbortController().signal,
        db,
        setExternalOperationId: (id) => opIds.push(id),
      };
      return (await tool.execute(tool.schema.parse(args), ctx)) as R;
    },
    close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
