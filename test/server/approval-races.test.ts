// One action, many deciders: concurrent HTTP approvals, an HTTP approval racing the CLI's (a real child process) and
// a cancel. Exactly one decision is applied — the others are refused with 409 / exit 2 — and the approved side effect
// happens once. The same refusal carries the same code over HTTP and on the CLI.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runtimeInternals } from "../../src/runtime/internals.js";
import type { AgentServer } from "../../src/server/server.js";
import { closeWorlds, openWorld } from "../../src/testing/index.js";
import { runCli } from "../helpers/cli.js";
import { ROLLBACK_INPUT, startTestServer, type Approval } from "./harness.js";
import { httpCall } from "./http-call.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
let server: AgentServer;
let project: { db: string; config: string };

beforeAll(async () => {
  ({ server, project } = await startTestServer());
});
afterAll(async () => {
  await server.close();
});
afterEach(async () => {
  await closeWorlds();
});

/** An ops_rollback run waiting for its rollback's approval, and that action. */
async function waitingRollback(): Promise<{ runId: string; action: Approval }> {
  const runId = await rollbackRun();
  const approvals = (await httpCall(server.url, "GET", `/agentrt/runs/${runId}/approvals`)).json as unknown as Approval[];
  expect(approvals).toHaveLength(1);
  return { runId, action: approvals[0]! };
}

/** The id of an ops_rollback run that went to wait for its rollback's approval. */
async function rollbackRun(): Promise<string> {
  // A fresh world: once rolled back, the deploy no longer needs it and the model asks for nothing.
  await openWorld({ path: project.db }).reset();
  const waited = await fetch(`${server.url}/runs/wait`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ assistant_id: "ops_rollback", input: ROLLBACK_INPUT }),
  });
  expect(waited.status).toBe(200);
  await waited.text();
  return /\/runs\/([^/]+)$/.exec(waited.headers.get("content-location") ?? "")?.[1] ?? "";
}

async function rollbacks(): Promise<number> {
  return (await openWorld({ path: project.db }).snapshot()).calls.rollback_deployment ?? 0;
}

function approveOverHttp(runId: string, action: Approval, body: Record<string, unknown> = {}) {
  return httpCall(server.url, "POST", `/agentrt/runs/${runId}/approve`, { action_id: action.action_id, args_hash: action.args_hash, ...body });
}

/** `agentrt …` in its own OS process on the server's file. */
function cliProcess(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const proc = spawn(process.execPath, ["--import", "tsx", "src/cli/bin.ts", ...args, "--db", project.db], {
    cwd: ROOT, env: { ...process.env, AGENTRT_CONFIG: project.config, OPENAI_API_KEY: "", AGENTRT_SIM_LATENCY_MS: "0" }, stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  proc.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  proc.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve) => proc.on("exit", (code) => resolve({ code, out, err })));
}

/** The code of a CLI refusal: `agentrt approve: … [CODE]`. */
function cliCode(err: string): string | undefined {
  return /\[([A-Z_]+)\]\s*$/.exec(err.trim())?.[1];
}

describe("concurrent approvals of one action", () => {
  for (const n of [2, 10]) {
    it(`${n} HTTP approvals at once: one is accepted (200), the others 409, one rollback`, async () => {
      const { runId, action } = await waitingRollback();
      const before = (await rollbacks());
      const answers = await Promise.all(Array.from({ length: n }, () => approveOverHttp(runId, action)));
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(n - 1);
      for (const refused of answers.filter((a) => a.status === 409)) expect(refused.json.code).toBe("RUN_NOT_WAITING");
      expect(answers.find((a) => a.status === 200)?.json).toMatchObject({ status: "SUCCEEDED" });
      expect((await rollbacks()) - before).toBe(1);
    }, 60_000);
  }

  it("an HTTP approval racing a CLI approval (another process): one is applied, one rollback", async () => {
    const { runId, action } = await waitingRollback();
    const before = (await rollbacks());
    const [cli, http] = await Promise.all([
      cliProcess(["approve", runId, "--action", action.action_id, "--args-hash", action.args_hash, "--json"]),
      approveOverHttp(runId, action),
    ]);
    const accepted = (cli.code === 0 ? 1 : 0) + (http.status === 200 ? 1 : 0);
    expect(accepted, `cli ${cli.code} ${cli.err}; http ${http.status} ${JSON.stringify(http.json)}`).toBe(1);
    if (cli.code !== 0) expect(cliCode(cli.err)).toBe("RUN_NOT_WAITING");
    if (http.status !== 200) expect(http.json.code).toBe("RUN_NOT_WAITING");
    await waitForRest(runId);
    expect((await rollbacks()) - before).toBe(1);
  }, 90_000);

  it("an HTTP approval racing a CLI approval and a CLI cancel: one of them wins the wait", async () => {
    const { runId, action } = await waitingRollback();
    const before = (await rollbacks());
    const [cli, cancel, http] = await Promise.all([
      cliProcess(["approve", runId, "--action", action.action_id, "--args-hash", action.args_hash, "--json"]),
      cliProcess(["cancel", runId, "--json"]),
      approveOverHttp(runId, action),
    ]);
    const approvals = (cli.code === 0 ? 1 : 0) + (http.status === 200 ? 1 : 0);
    const final = await waitForRest(runId);
    // A cancel that came after an approval won stops the approved execution; one that came first wins the wait.
    const events = await runtimeInternals(server.runtime).runs.events(runId);
    const cancelWonWait = events.some((e) => e.from === "WAITING_APPROVAL" && e.to === "CANCELED");
    const summary = `cli ${cli.code} ${cli.err}; cancel ${cancel.code} ${cancel.err}; http ${http.status} ${JSON.stringify(http.json)}; final ${final}`;
    expect(approvals + (cancelWonWait ? 1 : 0), summary).toBe(1);
    if (cli.code !== 0) expect(cliCode(cli.err), summary).toMatch(/^(RUN_NOT_WAITING)$/);
    if (http.status !== 200) expect(http.json.code, summary).toBe("RUN_NOT_WAITING");
    if (cancel.code !== 0) expect(cliCode(cancel.err), summary).toBe("RUN_FINISHED");
    if (cancelWonWait) expect((await rollbacks()) - before).toBe(0);
    else if (final === "SUCCEEDED") expect((await rollbacks()) - before).toBe(1);
    else expect((await rollbacks()) - before).toBeLessThanOrEqual(1);
  }, 90_000);
});

/** Polls the run until it rests (finished or waiting). */
async function waitForRest(runId: string): Promise<string> {
  for (;;) {
    const status = ((await httpCall(server.url, "GET", `/agentrt/runs/${runId}`)).json as { status?: string }).status ?? "";
    if (!["QUEUED", "RUNNING", "RETRYING"].includes(status)) return status;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("the same refusal, the same code on the CLI and over HTTP", () => {
  /** The code HTTP answers and the CLI prints for one approval, with the HTTP status. */
  async function both(runId: string, action: { action_id: string; args_hash: string }, by?: string): Promise<{ http: string | undefined; status: number; cli: string | undefined }> {
    const http = await approveOverHttp(runId, action as Approval, by === undefined ? {} : { by });
    const cli = await runCli(["approve", runId, "--action", action.action_id, "--args-hash", action.args_hash, "--db", project.db, ...(by === undefined ? [] : ["--by", by])]);
    expect(cli.code).toBe(2);
    return { http: http.json.code, status: http.status, cli: cliCode(cli.err) };
  }

  it("wrong args hash, unknown action, foreign approver, unknown run", async () => {
    const previous = process.env.AGENTRT_CONFIG;
    process.env.AGENTRT_CONFIG = project.config;
    try {
      const { runId, action } = await waitingRollback();
      expect(await both(runId, { ...action, args_hash: "0".repeat(64) })).toEqual({ http: "ARGS_HASH_MISMATCH", status: 409, cli: "ARGS_HASH_MISMATCH" });
      expect(await both(runId, { ...action, action_id: "act_nope" })).toEqual({ http: "UNKNOWN_ACTION", status: 409, cli: "UNKNOWN_ACTION" });
      expect(await both(runId, action, "mallory")).toEqual({ http: "APPROVER_NOT_ALLOWED", status: 403, cli: "APPROVER_NOT_ALLOWED" });
      expect(await both("run_nope", action)).toEqual({ http: "UNKNOWN_RUN", status: 404, cli: "UNKNOWN_RUN" });
      expect((await rollbacks())).toBeGreaterThanOrEqual(0);
    } finally {
      if (previous === undefined) delete process.env.AGENTRT_CONFIG;
      else process.env.AGENTRT_CONFIG = previous;
    }
  }, 60_000);

  it("a run that is no longer waiting and a wait past its TTL", async () => {
    const previous = { config: process.env.AGENTRT_CONFIG, ttl: process.env.AGENTRT_WAIT_TTL_MS };
    process.env.AGENTRT_CONFIG = project.config;
    try {
      const done = await waitingRollback();
      expect((await approveOverHttp(done.runId, done.action)).status).toBe(200);
      expect(await both(done.runId, done.action)).toEqual({ http: "RUN_NOT_WAITING", status: 409, cli: "RUN_NOT_WAITING" });

      process.env.AGENTRT_WAIT_TTL_MS = "5";
      const expiring = await rollbackRun();
      delete process.env.AGENTRT_WAIT_TTL_MS;
      // Past its TTL by the file's own clock (swept to EXPIRED by the server's worker, or not yet: the approval's own check).
      const runs = runtimeInternals(server.runtime).runs;
      const overdue = async () => { const run = await runs.get(expiring); return run.status !== "WAITING_APPROVAL" || (run.waitExpiresAt ?? Infinity) <= runs.clock(); };
      while (!(await overdue())) await new Promise((resolve) => setTimeout(resolve, 5));
      // The same action as the run before (a scripted model): only the expiry can refuse it.
      const http = await approveOverHttp(expiring, done.action);
      expect({ status: http.status, code: http.json.code }).toEqual({ status: 409, code: "RUN_NOT_WAITING" });
      const cli = await runCli(["approve", expiring, "--action", done.action.action_id, "--args-hash", done.action.args_hash, "--db", project.db]);
      expect(cliCode(cli.err)).toBe("RUN_NOT_WAITING");
      expect(await runs.get(expiring)).toMatchObject({ status: "EXPIRED", errorCode: "WAIT_EXPIRED" });
    } finally {
      if (previous.config === undefined) delete process.env.AGENTRT_CONFIG;
      else process.env.AGENTRT_CONFIG = previous.config;
      if (previous.ttl === undefined) delete process.env.AGENTRT_WAIT_TTL_MS;
      else process.env.AGENTRT_WAIT_TTL_MS = previous.ttl;
    }
  }, 60_000);
});
