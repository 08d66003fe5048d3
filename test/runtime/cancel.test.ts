// Cancel: no new steps, in-flight tools aborted (here and in a worker process), done side effects listed from the ledger.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Runtime } from "../../src/runtime/index.js";
import { openWorld } from "../../src/testing/index.js";
import { ledgerFor } from "../../src/ledger/executor.js";
import { holdCounters } from "../fixtures/cancel/graphs.js";
import { runCli } from "../helpers/cli.js";
import { runtimeInternals, runtimeSqlite } from "../../src/runtime/internals.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CONFIG = join(ROOT, "test", "fixtures", "cancel", "langgraph.json");
const opened: Runtime[] = [];

function open(): { rt: Runtime; db: string } {
  const db = join(mkdtempSync(join(tmpdir(), "agentrt-cancel-")), "runs.db");
  const rt = Runtime.open({ db, config: CONFIG, leaseMs: 600 });
  opened.push(rt);
  return { rt, db };
}

afterEach(async () => {
  for (const rt of opened.splice(0)) await rt.close();
});

function probes(rt: Runtime, runId: string): string[] {
  const table = runtimeSqlite(rt).prepare("SELECT 1 FROM sqlite_master WHERE name = 'cancel_probe'").get();
  if (table === undefined) return [];
  return (runtimeSqlite(rt).prepare("SELECT kind FROM cancel_probe WHERE run_id = ? ORDER BY id").all(runId) as { kind: string }[]).map((r) => r.kind);
}

async function until(what: string, ready: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("cancel", () => {
  it("lists the side effects already performed (tool, call id, operation id) in --json and in the text output", async () => {
    const { rt, db } = open();
    const waiting = await rt.submit({ graph: "note_then_approve", message: "tidy up" });
    expect(waiting.status).toBe("WAITING_APPROVAL");
    const note = (await ledgerFor(runtimeSqlite(rt)).list(waiting.run_id))[0]!;
    expect(note).toMatchObject({ tool: "post_note", status: "done" });

    const previous = process.env.AGENTRT_CONFIG;
    process.env.AGENTRT_CONFIG = CONFIG;
    try {
      const json = await runCli(["cancel", waiting.run_id, "--db", db, "--json"]);
      expect(json.code).toBe(0);
      const view = JSON.parse(json.out) as { status: string; side_effects: unknown[]; error: { code: string } };
      expect(view.status).toBe("CANCELED");
      expect(view.side_effects).toEqual([
        { tool: "post_note", tool_call_id: note.toolCallId, external_operation_id: `note-${note.toolCallId}`, idempotency_key: note.key, status: "done" },
      ]);
      const again = await runCli(["cancel", waiting.run_id, "--db", db]);
      expect(again.code).toBe(2);
      expect(again.err).toContain("RUN_FINISHED");
    } finally {
      if (previous === undefined) delete process.env.AGENTRT_CONFIG;
      else process.env.AGENTRT_CONFIG = previous;
    }
    // Done stays done: the note was posted once and nothing else ran.
    expect(probes(rt, waiting.run_id)).toEqual(["post_note"]);
  });

  it("ops_rollback canceled after its rollback was performed: the rollback stays done (once) and is listed", async () => {
    const db = join(mkdtempSync(join(tmpdir(), "agentrt-cancel-")), "runs.db");
    const rt = Runtime.open({ db, config: join(ROOT, "langgraph.json") });
    opened.push(rt);
    // Slow simulated systems, so the run is still verifying when the cancel comes.
    const world = openWorld({ db: runtimeSqlite(rt), env: { AGENTRT_SIM_LATENCY_MS: "300" } });
    const waiting = await rt.submit({ graph: "ops_rollback", message: "Why did the payments deploy fail? Roll back if needed.", user: "alice" });
    const action = waiting.pending[0]!;
    const queued = await rt.approve(waiting.run_id, { actionId: action.action_id, argsHash: action.args_hash, queue: true });
    const running = rt.start(queued.run_id);
    const rollback = async () => (await ledgerFor(runtimeSqlite(rt)).list(waiting.run_id)).find((e) => e.tool === "rollback_deployment");
    await until("the rollback is recorded", async () => (await rollback())?.status === "done");
    const canceled = await rt.cancel(waiting.run_id, { by: "alice" });
    expect(canceled.status).toBe("CANCELED");
    const done = (await rollback())!;
    expect(canceled.side_effects).toContainEqual({
      tool: "rollback_deployment", tool_call_id: done.toolCallId, external_operation_id: done.externalOperationId,
      idempotency_key: done.key, status: "done",
    });
    expect(done.externalOperationId).toBeTruthy();
    expect((await running).status).toBe("CANCELED");
    expect((await world.snapshot()).calls.rollback_deployment).toBe(1);
  });

  it("a run canceled by another connection makes no new model call, long before its next heartbeat", async () => {
    const { rt: canceler, db } = open();
    const executor = Runtime.open({ db, config: CONFIG, leaseMs: 60_000 });
    opened.push(executor);
    holdCounters.modelCalls = 0;
    const queued = await executor.submit({ graph: "hold_then_answer", message: "go", queue: true });
    const running = executor.start(queued.run_id);
    await until("hold started", () => probes(canceler, queued.run_id).includes("held"));
    await canceler.cancel(queued.run_id);
    runtimeSqlite(canceler).prepare("INSERT INTO cancel_probe (run_id, kind) VALUES (?, 'go')").run(queued.run_id);
    expect((await running).status).toBe("CANCELED");
    expect(holdCounters.modelCalls).toBe(1);
  });

  it("the text output names the side effects", async () => {
    const { rt, db } = open();
    const waiting = await rt.submit({ graph: "note_then_approve", message: "tidy up" });
    const text = await runCli(["cancel", waiting.run_id, "--db", db]);
    expect(text.code).toBe(0);
    expect(text.out).toContain("CANCELED");
    expect(text.out).toMatch(/side effects already performed[^\n]*\n\s+post_note \(call \S+, operation note-/);
  });

  it("a cancel in the same process aborts the in-flight tool at once; the run ends CANCELED, not FAILED", async () => {
    const { rt } = open();
    const queued = await rt.submit({ graph: "slow_op", message: "go", queue: true });
    const running = rt.start(queued.run_id);
    await until("slow_op started", () => probes(rt, queued.run_id).includes("started"));
    const canceled = await rt.cancel(queued.run_id);
    expect(canceled.status).toBe("CANCELED");
    expect(canceled.side_effects).toEqual([expect.objectContaining({ tool: "slow_op", status: "unknown" })]);
    expect((await running).status).toBe("CANCELED");
    expect(probes(rt, queued.run_id)).toEqual(["started", "aborted"]);
    expect((await runtimeInternals(rt).runs.events(queued.run_id)).map((e) => e.to)).toEqual(["QUEUED", "RUNNING", "CANCELED"]);
  });

  it("a cancel from another process aborts the tool a worker process is running; the worker stops the run", async () => {
    const { rt, db } = open();
    const queued = await rt.submit({ graph: "slow_op", message: "go", queue: true });
    const worker = spawn(process.execPath, ["--import", "tsx", "src/cli/bin.ts", "worker", "--once", "--lease-ms", "600", "--db", db], {
      cwd: ROOT, env: { ...process.env, AGENTRT_CONFIG: CONFIG, OPENAI_API_KEY: "" }, stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    worker.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exit = new Promise<number | null>((resolve) => worker.on("exit", (code) => resolve(code)));
    try {
      await until("slow_op started in the worker", () => probes(rt, queued.run_id).includes("started"), 90_000);
      expect((await rt.get(queued.run_id)).status).toBe("RUNNING");
      const canceled = await rt.cancel(queued.run_id, { by: "ops" });
      expect(canceled.side_effects).toEqual([expect.objectContaining({ tool: "slow_op", status: "unknown" })]);
      // The worker's heartbeat sees CANCELED, aborts the lease signal the tool holds, and (--once) exits.
      expect(await exit, stderr).toBe(0);
    } finally {
      worker.kill("SIGKILL");
    }
    expect(probes(rt, queued.run_id)).toEqual(["started", "aborted"]);
    expect(await rt.get(queued.run_id)).toMatchObject({ status: "CANCELED", error: { code: "CANCELED" } });
    expect((await runtimeInternals(rt).runs.events(queued.run_id)).map((e) => e.to)).toEqual(["QUEUED", "RUNNING", "CANCELED"]);
  }, 120_000);
});
