// A cancel reaches the side effect in flight whichever process executes the run: the process executing it through
// `agentrt approve` (Runtime.approve / start), not only a worker loop, notices within about a second — long before
// its heartbeat (a third of the lease) or the tool's simulated latency — and aborts the call, which then never
// happens; the cancel's answer and the run's status say so instead of "done" or "unknown".
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Runtime, type RunView } from "../../src/runtime/index.js";
import { openWorld } from "../../src/testing/index.js";
import { ledgerFor } from "../../src/ledger/executor.js";
import { runCli } from "../helpers/cli.js";
import { ROLLBACK_INPUT, startTestServer } from "../server/harness.js";
import { runtimeSqlite } from "../../src/runtime/internals.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CONFIG = join(ROOT, "langgraph.json");
const MESSAGE = "Why did the payments deploy fail? Roll back if needed.";
/** Every simulated call of the executing process takes this long: far beyond how long the test waits for the abort. */
const SLOW_MS = "20000";
/** The executing process's lease: its heartbeat (a third) comes long after the test has ended. */
const LONG_LEASE_MS = "300000";
const opened: Runtime[] = [];

afterEach(async () => {
  for (const rt of opened.splice(0)) await rt.close();
});

interface Child {
  exit: Promise<{ code: number | null; out: string; err: string }>;
  kill: () => void;
}

function cli(db: string, args: string[], env: Record<string, string> = {}): Child {
  const proc = spawn(process.execPath, ["--import", "tsx", "src/cli/bin.ts", ...args, "--db", db], {
    cwd: ROOT, env: { ...process.env, AGENTRT_CONFIG: CONFIG, OPENAI_API_KEY: "", AGENTRT_SIM_LATENCY_MS: "0", ...env }, stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  proc.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  proc.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  return { exit: new Promise((resolve) => proc.on("exit", (code) => resolve({ code, out, err }))), kill: () => proc.kill("SIGKILL") };
}

/** `agentrt cancel RUN --json` in a child process: it must exit 0 answering CANCELED with no side effects listed. */
async function cancelInChild(db: string, runId: string, env: Record<string, string> = {}): Promise<void> {
  const canceling = cli(db, ["cancel", runId, "--by", "ops", "--json"], env);
  let canceled;
  try {
    canceled = await canceling.exit;
  } finally {
    canceling.kill();
  }
  expect(canceled.code, canceled.err).toBe(0);
  expect(JSON.parse(canceled.out)).toMatchObject({ status: "CANCELED", side_effects: [] });
}

async function until(what: string, ready: () => boolean | Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** An ops_rollback run waiting for the rollback's approval (simulated calls instant in this process). */
async function waitingRollback(): Promise<{ rt: Runtime; db: string; view: RunView }> {
  const db = join(mkdtempSync(join(tmpdir(), "agentrt-cancel-in-flight-")), "runs.db");
  const rt = Runtime.open({ db, config: CONFIG });
  opened.push(rt);
  const view = await rt.submit({ graph: "ops_rollback", message: MESSAGE, user: "alice" });
  expect(view.status).toBe("WAITING_APPROVAL");
  return { rt, db, view };
}

async function rollbackEntry(rt: Runtime, runId: string) {
  return (await ledgerFor(runtimeSqlite(rt)).list(runId)).find((entry) => entry.tool === "rollback_deployment");
}

async function rollbacksPerformed(rt: Runtime): Promise<number> {
  return (await openWorld({ db: runtimeSqlite(rt) }).snapshot()).calls.rollback_deployment ?? 0;
}

describe("a cancel from another process than the one executing the run", () => {
  it("aborts the rollback `agentrt approve` is performing in a child process; it never happens and is not listed", async () => {
    const { rt, db, view } = await waitingRollback();
    const action = view.pending[0]!;
    const approving = cli(db, ["approve", view.run_id, "--action", action.action_id, "--args-hash", action.args_hash, "--json"], {
      AGENTRT_SIM_LATENCY_MS: SLOW_MS, AGENTRT_LEASE_MS: LONG_LEASE_MS,
    });
    try {
      // The ledger's intent is written right before the call: the rollback is in flight in the child.
      await until("the rollback is in flight in the child", async () => (await rollbackEntry(rt, view.run_id))?.status === "pending");
      const previous = process.env.AGENTRT_CONFIG;
      process.env.AGENTRT_CONFIG = CONFIG;
      let canceled;
      try {
        canceled = await runCli(["cancel", view.run_id, "--by", "alice", "--db", db, "--json"]);
      } finally {
        if (previous === undefined) delete process.env.AGENTRT_CONFIG;
        else process.env.AGENTRT_CONFIG = previous;
      }
      expect(canceled.code, canceled.err).toBe(0);
      const answer = JSON.parse(canceled.out) as { status: string; side_effects: { tool: string; status: string }[] };
      expect(answer.status).toBe("CANCELED");
      // The child was told and stopped the call before it took effect: the answer lists no rollback.
      expect(answer.side_effects).toEqual([]);
      // The child's approve ends with the run CANCELED (exit 1: it did not succeed), without waiting out the latency.
      const approved = await approving.exit;
      expect(approved.code, approved.err).toBe(1);
      expect(JSON.parse(approved.out)).toMatchObject({ run_id: view.run_id, status: "CANCELED" });
    } finally {
      approving.kill();
    }
    // Whatever the child had done, it is done by now: the world never saw the rollback, and nothing says it might have.
    expect(await rollbacksPerformed(rt)).toBe(0);
    expect((await rollbackEntry(rt, view.run_id))?.status).toBe("failed");
    const status = await rt.get(view.run_id);
    expect(status).toMatchObject({ status: "CANCELED" });
    expect(status.side_effects ?? []).toEqual([]);
  }, 120_000);

  it("aborts the rollback this process performs when `agentrt cancel` runs in a child process", async () => {
    const { rt, db, view } = await waitingRollback();
    const action = view.pending[0]!;
    // Executed here, through approve (Runtime.start), with a lease whose heartbeat would come long after the test.
    const executing = Runtime.open({ db, config: CONFIG, leaseMs: Number(LONG_LEASE_MS) });
    opened.push(executing);
    process.env.AGENTRT_SIM_LATENCY_MS = SLOW_MS;
    let approved: RunView;
    try {
      const approving = executing.approve(view.run_id, { actionId: action.action_id, argsHash: action.args_hash, by: "alice" });
      await until("the rollback is in flight here", async () => (await rollbackEntry(rt, view.run_id))?.status === "pending");
      await cancelInChild(db, view.run_id);
      approved = await approving;
    } finally {
      delete process.env.AGENTRT_SIM_LATENCY_MS;
    }
    expect(approved).toMatchObject({ run_id: view.run_id, status: "CANCELED" });
    expect(await rollbacksPerformed(rt)).toBe(0);
    expect((await rollbackEntry(rt, view.run_id))?.status).toBe("failed");
    expect((await rt.get(view.run_id)).side_effects ?? []).toEqual([]);
  }, 120_000);

  it("aborts the rollback the server performs for an approval over HTTP when `agentrt cancel` runs in a child process", async () => {
    process.env.AGENTRT_LEASE_MS = LONG_LEASE_MS;
    let started: Awaited<ReturnType<typeof startTestServer>>;
    try {
      started = await startTestServer();
    } finally {
      delete process.env.AGENTRT_LEASE_MS;
    }
    const { server, client, project } = started;
    try {
      const thread = await client.threads.create();
      await client.runs.wait(thread.thread_id, "ops_rollback", { input: ROLLBACK_INPUT });
      const [waiting] = await client.runs.list(thread.thread_id);
      const action = (await server.runtime.get(waiting!.run_id)).pending[0]!;
      process.env.AGENTRT_SIM_LATENCY_MS = SLOW_MS;
      let run;
      try {
        run = await client.runs.create(thread.thread_id, "ops_rollback", {
          command: { resume: { action_id: action.action_id, args_hash: action.args_hash, decision: "approve" } },
        });
        const rollback = () => runtimeSqlite(server.runtime)
          .prepare("SELECT run_id, status FROM tool_ledger WHERE tool = 'rollback_deployment'").get() as { run_id: string; status: string } | undefined;
        await until("the server is performing the rollback", () => rollback()?.status === "pending");
        await cancelInChild(project.db, rollback()!.run_id, { AGENTRT_CONFIG: project.config });
        await client.runs.join(thread.thread_id, run.run_id);
        expect(await server.runtime.get(rollback()!.run_id)).toMatchObject({ status: "CANCELED" });
        expect(rollback()?.status).toBe("failed");
      } finally {
        delete process.env.AGENTRT_SIM_LATENCY_MS;
      }
      expect((await client.runs.get(thread.thread_id, run.run_id)).status).not.toBe("success");
      expect((await openWorld({ db: runtimeSqlite(server.runtime) }).snapshot()).calls.rollback_deployment ?? 0).toBe(0);
    } finally {
      await server.close();
    }
  }, 120_000);
});
