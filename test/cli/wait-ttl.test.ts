// Wait TTL end to end: `agentrt run --wait-ttl-ms` / AGENTRT_WAIT_TTL_MS, expiry seen by status, approve/input refused
// afterwards with nothing changed, and the worker's poll loop sweeping waits nobody looks at.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeEach, describe, expect, it } from "vitest";
import { Runtime } from "../../src/runtime/index.js";
import { runCli } from "../helpers/cli.js";
import { runtimeInternals } from "../../src/runtime/internals.js";

const CONFIG = fileURLToPath(new URL("../../langgraph.json", import.meta.url));
let db = "";

interface RunJson {
  run_id: string;
  status: string;
  pending: { action_id: string; args_hash: string }[];
  wait_expires_at: string | null;
  error: { code: string; message: string } | null;
}

const cli = (...args: string[]) => runCli([...args, "--db", db]);

async function json(...args: string[]): Promise<RunJson> {
  const result = await cli(...args, "--json");
  expect(result.err).toBe("");
  return JSON.parse(result.out) as RunJson;
}

/** Polls `status` (the lazy check) until the run leaves its wait; never a fixed sleep alone. */
async function untilExpired(runId: string): Promise<RunJson> {
  for (let i = 0; i < 500; i++) {
    const view = await json("status", runId);
    if (view.status === "EXPIRED") return view;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`run ${runId} did not expire`);
}

async function worldCalls(): Promise<Record<string, number>> {
  return (JSON.parse((await cli("world", "--json")).out) as { calls: Record<string, number> }).calls;
}

beforeEach(async () => {
  db = join(mkdtempSync(join(tmpdir(), "agentrt-ttl-")), "runs.db");
});

describe("wait TTL", () => {
  it("an approval wait past its TTL is EXPIRED (WAIT_EXPIRED) and can no longer be approved", async () => {
    const waiting = await json("run", "ops_rollback", "--message", "Why did the payments deploy fail? Roll back if needed.", "--wait-ttl-ms", "5");
    expect(waiting.status).toBe("WAITING_APPROVAL");
    expect(waiting.wait_expires_at).not.toBeNull();
    const expired = await untilExpired(waiting.run_id);
    expect(expired.error?.code).toBe("WAIT_EXPIRED");
    expect(expired.wait_expires_at).toBeNull();
    const action = waiting.pending[0]!;
    const refused = await cli("approve", waiting.run_id, "--action", action.action_id, "--args-hash", action.args_hash);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain("RUN_NOT_WAITING");
    expect(await json("status", waiting.run_id)).toEqual(expired);
    // An expired run did not do its job: scripts checking the exit code must see that.
    expect((await cli("status", waiting.run_id)).code).toBe(1);
    expect((await worldCalls()).rollback_deployment ?? 0).toBe(0);
  });

  it("an input wait past its TTL (from AGENTRT_WAIT_TTL_MS) is EXPIRED and input is refused", async () => {
    process.env.AGENTRT_WAIT_TTL_MS = "5";
    let waiting: RunJson;
    try {
      waiting = await json("run", "order_delay", "--message", "Is my order late?");
    } finally {
      delete process.env.AGENTRT_WAIT_TTL_MS;
    }
    expect(waiting.status).toBe("WAITING_INPUT");
    const expired = await untilExpired(waiting.run_id);
    const refused = await cli("input", waiting.run_id, "--text", "10086");
    expect(refused.code).toBe(2);
    expect(refused.err).toContain("RUN_NOT_WAITING");
    expect(await json("status", waiting.run_id)).toEqual(expired);
    expect(await worldCalls()).toEqual({});
  });

  it("without a TTL a wait has no deadline; a bad TTL is refused with exit 2 and no run is created", async () => {
    const waiting = await json("run", "order_delay", "--message", "Is my order late?");
    expect(waiting.wait_expires_at).toBeNull();
    for (const bad of ["-5", "0", "soon"]) {
      const refused = await cli("run", "order_delay", "--message", "Is my order late?", "--wait-ttl-ms", bad);
      expect(refused.code).toBe(2);
    }
    process.env.AGENTRT_WAIT_TTL_MS = "later";
    try {
      const refused = await cli("run", "order_delay", "--message", "x");
      expect(refused.code).toBe(2);
      expect(refused.err).toContain("AGENTRT_WAIT_TTL_MS");
    } finally {
      delete process.env.AGENTRT_WAIT_TTL_MS;
    }
    expect((JSON.parse((await cli("runs", "--json")).out) as { runs: unknown[] }).runs).toHaveLength(1);
  });

  it("agentrt runs shows an overdue wait as EXPIRED", async () => {
    const waiting = await json("run", "order_delay", "--message", "Is my order late?", "--wait-ttl-ms", "5");
    let listed: { run_id: string; status: string }[] = [];
    for (let i = 0; i < 500; i++) {
      listed = (JSON.parse((await cli("runs", "--status", "EXPIRED", "--json")).out) as { runs: { run_id: string; status: string }[] }).runs;
      if (listed.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(listed.map((r) => r.run_id)).toEqual([waiting.run_id]);
  });

  it("a worker's poll loop expires waits nobody looks at", async () => {
    const rt = Runtime.open({ db, config: CONFIG });
    try {
      const waiting = await rt.submit({ graph: "order_delay", message: "Is my order late?", waitTtlMs: 20 });
      expect(waiting.status).toBe("WAITING_INPUT");
      const worker = rt.worker({ pollMs: 5 });
      const loop = worker.run();
      // The raw record (no lazy check): only the worker's sweep can move it.
      for (let i = 0; i < 1000 && (await runtimeInternals(rt).runs.get(waiting.run_id)).status !== "EXPIRED"; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      await worker.stop();
      await loop;
      expect(await runtimeInternals(rt).runs.get(waiting.run_id)).toMatchObject({ status: "EXPIRED", errorCode: "WAIT_EXPIRED" });
      expect((await runtimeInternals(rt).runs.events(waiting.run_id)).at(-1)).toMatchObject({ from: "WAITING_INPUT", to: "EXPIRED" });
      await expect(rt.provideInput(waiting.run_id, { text: "10086" })).rejects.toMatchObject({ code: "RUN_NOT_WAITING" });
    } finally {
      await rt.close();
    }
  });
});
