// `agentrt input`: a run paused by a plain interrupt() (order_delay without an order number) is answered and resumed,
// by a fresh open of the SQLite file per command and by separate OS processes.
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeEach, describe, expect, it } from "vitest";
import { cliOnDb } from "../helpers/cli.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ASK = "Is my order late? Tell the rep if it is.";
let db = "";

interface RunJson {
  run_id: string;
  status: string;
  input_requests: { interrupt_id: string; question: string }[];
  result: unknown;
  error: { code: string } | null;
}

const { cli, json } = cliOnDb<RunJson>(() => db);

async function worldCalls(): Promise<Record<string, number>> {
  return (JSON.parse((await cli("world", "--json")).out) as { calls: Record<string, number> }).calls;
}

async function startAsking(): Promise<RunJson> {
  const { code, view } = await json("run", "order_delay", "--message", ASK, "--user", "alice");
  expect(code).toBe(0);
  expect(view.status).toBe("WAITING_INPUT");
  return view;
}

beforeEach(() => {
  db = join(mkdtempSync(join(tmpdir(), "agentrt-input-")), "runs.db");
});

describe("agentrt input", () => {
  it("status shows the question; the answer resumes the run to SUCCEEDED", async () => {
    const view = await startAsking();
    expect(view.input_requests).toEqual([expect.objectContaining({ question: expect.stringContaining("Which order") })]);
    expect((await json("status", view.run_id)).view).toEqual(view);
    const human = await cli("status", view.run_id);
    expect(human.out).toContain("waiting for input: Which order");
    expect(human.out).toContain(`agentrt input ${view.run_id} --text`);

    const answered = await json("input", view.run_id, "--text", "10086");
    expect(answered.code).toBe(0);
    expect(answered.view.status).toBe("SUCCEEDED");
    expect(String(answered.view.result)).toContain("notified the sales rep Wang Fang");
    expect(await worldCalls()).toMatchObject({ get_order: 1, send_message: 1 });
  });

  it("refuses a run that is not waiting, an unknown run and a missing --text with exit 2, changing nothing", async () => {
    const done = await json("run", "order_delay", "--message", "Check order 10087");
    expect(done.view.status).toBe("SUCCEEDED");
    const notWaiting = await cli("input", done.view.run_id, "--text", "10086");
    expect(notWaiting.code).toBe(2);
    expect(notWaiting.err).toContain("RUN_NOT_WAITING");
    expect((await json("status", done.view.run_id)).view).toEqual(done.view);

    const unknown = await cli("input", "run_missing", "--text", "x");
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("UNKNOWN_RUN");

    const view = await startAsking();
    const noText = await cli("input", view.run_id);
    expect(noText.code).toBe(2);
    const empty = await cli("input", view.run_id, "--text", "  ");
    expect(empty.code).toBe(2);
    expect(empty.err).toContain("BAD_INPUT");
    expect((await json("status", view.run_id)).view).toEqual(view);
    expect(await worldCalls()).toEqual({ get_order: 1 });
  });

  it("--queue stores the answer for a worker, which finishes the run", async () => {
    const view = await startAsking();
    const queued = await json("input", view.run_id, "--text", "order 10086 please", "--queue");
    expect(queued.view.status).toBe("QUEUED");
    expect(await worldCalls()).toEqual({});
    expect((await cli("worker", "--once")).code).toBe(0);
    const after = await json("status", view.run_id);
    expect(after.view.status).toBe("SUCCEEDED");
    expect((await worldCalls()).send_message).toBe(1);
  });

  it("pauses in one OS process and is answered in another", () => {
    const agentrt = (...args: string[]) => spawnSync(process.execPath, ["--import", "tsx", "src/cli/bin.ts", ...args, "--db", db, "--json"], {
      cwd: ROOT, encoding: "utf8", env: { ...process.env, OPENAI_API_KEY: "", AGENTRT_CONFIG: join(ROOT, "langgraph.json") },
    });
    const first = agentrt("run", "order_delay", "--message", ASK);
    expect(first.stderr).toBe("");
    const paused = JSON.parse(first.stdout) as RunJson;
    expect(paused.status).toBe("WAITING_INPUT");
    const second = agentrt("input", paused.run_id, "--text", "ORD 10086");
    expect(second.stderr).toBe("");
    expect(second.status).toBe(0);
    const resumed = JSON.parse(second.stdout) as RunJson;
    expect(resumed).toMatchObject({ run_id: paused.run_id, status: "SUCCEEDED", input_requests: [] });
    expect(String(resumed.result)).toContain("Order 10086");
  }, 120_000);
});
