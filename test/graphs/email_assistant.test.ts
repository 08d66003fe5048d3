// email_assistant, a foreign agent (LangChain createAgent + humanInTheLoopMiddleware), through the agentrt CLI:
// its HITL interrupt is WAITING_APPROVAL with agentrt's pending action; approve, an edit and a reject work as for
// agentrt's own graphs; the trace shows its model and tool calls; and the real executable, killed after the approval
// while send_email is in flight, is recovered by a worker in another process. Only that last case needs child
// processes; the others call the CLI's main in this process, since each child's start costs seconds of module loading.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { closeWorlds, openWorld } from "../../src/testing/index.js";
import { runCli } from "../helpers/cli.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const REQUEST = "Email alice@example.com that the report is ready";

interface RunJson {
  run_id: string;
  status: string;
  result: unknown;
  usage: { model_calls: number; tokens: number };
  pending: { action_id: string; tool: string; args: Record<string, unknown>; args_hash: string; approvers: string[]; allowed_decisions: string[] }[];
}

const SIM_ENV = { AGENTRT_SIM_LATENCY_MS: "0", AGENTRT_SIM_FAULTS: "" };

/** The real executable in a child process, as a user's shell runs it. */
function agentrtProcess(db: string, args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, ["--import", "tsx", "src/cli/bin.ts", ...args, "--db", db], {
    cwd: root, encoding: "utf8", env: { ...process.env, ...SIM_ENV, ...env },
  });
}

/** The CLI's main in this process (SIM_ENV is this process's environment, see beforeAll). */
const agentrt = (db: string, args: string[]) => runCli([...args, "--db", db]);

async function json(db: string, args: string[]): Promise<RunJson> {
  const result = await agentrt(db, [...args, "--json"]);
  expect(result.err).toBe("");
  return JSON.parse(result.out) as RunJson;
}

/** `agentrt status --json` in this process: a read, polled, so no child's start-up per poll. */
async function status(db: string, runId: string): Promise<RunJson> {
  const result = await runCli(["status", runId, "--db", db, "--json"]);
  return JSON.parse(result.out) as RunJson;
}

const freshDb = () => join(mkdtempSync(join(tmpdir(), "agentrt-email-")), "runs.db");
const emails = async (db: string) => {
  const messages = (await openWorld({ path: db }).snapshot()).systems.messaging ?? {};
  return Object.values(messages) as { to: string; channel: string }[];
};
const bind = (action: { action_id: string; args_hash: string }) => ["--action", action.action_id, "--args-hash", action.args_hash];

async function waitingRun(db: string): Promise<RunJson & { action: RunJson["pending"][number] }> {
  const run = await json(db, ["run", "email_assistant", "--message", REQUEST]);
  expect(run.status).toBe("WAITING_APPROVAL");
  return { ...run, action: run.pending[0]! };
}

beforeAll(() => {
  for (const [name, value] of Object.entries(SIM_ENV)) vi.stubEnv(name, value);
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await closeWorlds();
});

describe("email_assistant under agentrt (CLI)", () => {
  it("waits with a pending send_email, refuses a wrong hash (exit 2), and sends one email on approve", async () => {
    const db = freshDb();
    const run = await waitingRun(db);
    expect(run.pending).toEqual([{
      action_id: expect.stringMatching(/^act_[0-9a-f]{16}$/), tool: "send_email",
      args: { to: "alice@example.com", subject: "Update", body: "Hello, the report is ready" },
      args_hash: expect.stringMatching(/^[0-9a-f]{64}$/), reason: "An email is sent immediately and cannot be unsent",
      approvers: ["anonymous"], allowed_decisions: ["approve", "edit", "reject"],
    }]);
    expect(run.usage.model_calls).toBe(1);

    const wrong = await agentrt(db, ["approve", run.run_id, "--action", run.action.action_id, "--args-hash", "0".repeat(64)]);
    expect(wrong.code).toBe(2);
    expect(wrong.err).toContain("ARGS_HASH_MISMATCH");
    expect((await status(db, run.run_id)).status).toBe("WAITING_APPROVAL");
    expect(await emails(db)).toEqual([]);

    const done = await json(db, ["approve", run.run_id, ...bind(run.action)]);
    expect(done).toMatchObject({ status: "SUCCEEDED", result: "Done: Sent msg_0001 to alice@example.com." });
    expect((await emails(db)).map((e) => [e.to, e.channel])).toEqual([["alice@example.com", "email"]]);

    // Its model and tool calls are in the trace, with the model's token counts.
    const trace = await agentrt(db, ["trace", run.run_id]);
    expect(trace.code).toBe(0);
    expect(trace.out).toMatch(/model_turn 1\s+ok\s+\S+\s+\d+→\d+ tok/);
    expect(trace.out).toContain("approval_wait send_email");
    expect(trace.out).toContain("execute_tool send_email");
    expect(trace.out).toMatch(/model_turn 2\s+ok/);
  }, 180_000);

  it("--edit-args sends to the edited recipient; an edit the schema refuses exits 2 and sends nothing", async () => {
    const db = freshDb();
    const run = await waitingRun(db);
    const refused = await agentrt(db, ["approve", run.run_id, ...bind(run.action), "--edit-args", '{"to":"not-an-address","subject":"Update","body":"hi"}']);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain("EDIT_ARGS_INVALID");
    expect(await emails(db)).toEqual([]);

    const edited = await json(db, ["approve", run.run_id, ...bind(run.action), "--edit-args", JSON.stringify({ ...run.action.args, to: "bob@example.com" })]);
    expect(edited).toMatchObject({ status: "SUCCEEDED", result: "Done: Sent msg_0001 to bob@example.com." });
    expect((await emails(db)).map((e) => e.to)).toEqual(["bob@example.com"]);
  }, 180_000);

  it("reject sends nothing and the model reads the reason", async () => {
    const db = freshDb();
    const run = await waitingRun(db);
    const done = await json(db, ["reject", run.run_id, ...bind(run.action), "--reason", "alice is on leave"]);
    expect(done).toMatchObject({ status: "SUCCEEDED", result: "I did not send the email: alice is on leave" });
    expect(await emails(db)).toEqual([]);
  }, 180_000);

  it("killed after the approval while send_email is in flight, the run is finished by a worker in another process", async () => {
    const db = freshDb();
    const run = await waitingRun(db);
    // The approving process holds a short lease and a slow send_email: it dies inside the call, before the effect.
    const approving = spawn(process.execPath, ["--import", "tsx", "src/cli/bin.ts", "approve", run.run_id, ...bind(run.action), "--db", db], {
      cwd: root, stdio: "ignore", env: { ...process.env, AGENTRT_LEASE_MS: "1000", AGENTRT_SIM_LATENCY_MS: "60000", AGENTRT_SIM_FAULTS: "" },
    });
    const exited = new Promise((resolve) => approving.once("exit", resolve));
    for (let i = 0; (await status(db, run.run_id)).status !== "RUNNING"; i++) {
      // A child's start (tsx compiling the CLI) takes seconds on a loaded machine.
      expect(i, "the approving process never started the run").toBeLessThan(240);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    approving.kill("SIGKILL");
    await exited;
    expect((await status(db, run.run_id)).status).toBe("RUNNING");
    expect(await emails(db)).toEqual([]);

    await new Promise((resolve) => setTimeout(resolve, 1200)); // the dead process's lease runs out
    const worker = agentrtProcess(db, ["worker", "--once", "--lease-ms", "1000"]);
    expect(worker.status).toBe(0);
    const done = await status(db, run.run_id);
    expect(done).toMatchObject({ status: "SUCCEEDED", result: "Done: Sent msg_0001 to alice@example.com." });
    expect((await emails(db)).map((e) => e.to)).toEqual(["alice@example.com"]);
  }, 240_000);
});
