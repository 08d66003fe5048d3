// Where a graph stops becomes the run's status; read-only commands need no langgraph.json.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Runtime, StreamBus } from "../../src/runtime/index.js";
import { runCli } from "../helpers/cli.js";
import { runtimeInternals } from "../../src/runtime/internals.js";

const tempDb = () => join(mkdtempSync(join(tmpdir(), "agentrt-outcome-")), "o.db");
const FIXTURES = fileURLToPath(new URL("../fixtures/plain-interrupt/langgraph.json", import.meta.url));
const SEEDS = fileURLToPath(new URL("../../langgraph.json", import.meta.url));

/** A runtime on a fresh file for the test's body, closed after it. */
async function withRuntime(config: string, body: (runtime: Runtime) => Promise<void>): Promise<void> {
  const runtime = Runtime.open({ db: tempDb(), config });
  try {
    await body(runtime);
  } finally {
    await runtime.close();
  }
}

describe("run outcomes", () => {
  it("a plain interrupt() leaves the run WAITING_INPUT, not SUCCEEDED", () =>
    withRuntime(FIXTURES, async (runtime) => {
      const view = await runtime.submit({ graph: "ask", input: {} });
      expect(view.status).toBe("WAITING_INPUT");
      expect((await runtimeInternals(runtime).runs.get(view.run_id)).pending).toEqual([expect.objectContaining({ value: { question: "Which order?" } })]);
    }));

  it("a plain interrupt() streamed to a listener of a bus without \"updates\" still leaves the run WAITING_INPUT", async () => {
    const bus = new StreamBus({ modes: ["values", "messages"] });
    const runtime = Runtime.open({ db: tempDb(), config: FIXTURES, streams: bus });
    try {
      const queued = await runtime.submit({ graph: "ask", input: {}, queue: true });
      bus.subscribe(queued.run_id, () => undefined);
      expect((await runtime.start(queued.run_id)).status).toBe("WAITING_INPUT");
    } finally {
      await runtime.close();
    }
  });

  it("a static breakpoint (interruptBefore) is not mistaken for the end: the run does not succeed", () =>
    withRuntime(FIXTURES, async (runtime) => {
      const view = await runtime.submit({ graph: "breakpoint", input: {} });
      expect(view.status).toBe("FAILED");
      expect((await runtimeInternals(runtime).runs.get(view.run_id)).errorMessage).toContain("stopped before its end");
    }));

  it("a run that reaches its end is decided from its stream: the result is the final state", () =>
    withRuntime(SEEDS, async (runtime) => {
      const view = await runtime.submit({ graph: "city_weather", message: "Weather in Beijing and Shanghai" });
      expect(view.status).toBe("SUCCEEDED");
      const graph = (await runtime.registry.load("city_weather")) as unknown as { getState(c: object): Promise<{ values: { result?: unknown } }> };
      const state = await graph.getState({ configurable: { thread_id: (await runtimeInternals(runtime).runs.get(view.run_id)).threadId } });
      expect((await runtimeInternals(runtime).runs.get(view.run_id)).result).toEqual(state.values.result);
      expect(state.values.result).toBeTruthy();
    }));

  it("status and runs work from a directory without langgraph.json; run names the missing file", async () => {
    const db = tempDb();
    const runtime = Runtime.open({ db, config: SEEDS });
    const view = await runtime.submit({ graph: "city_weather", message: "Weather in Beijing", queue: true });
    await runtime.close();
    const previous = process.env.AGENTRT_CONFIG;
    process.env.AGENTRT_CONFIG = join(tmpdir(), "nowhere", "langgraph.json");
    try {
      const status = await runCli(["status", view.run_id, "--db", db, "--json"]);
      expect(status.code).toBe(0);
      expect(JSON.parse(status.out)).toMatchObject({ run_id: view.run_id, status: "QUEUED" });
      expect((await runCli(["runs", "--db", db, "--json"])).code).toBe(0);
      const run = await runCli(["run", "city_weather", "--message", "x", "--db", db]);
      expect(run.code).toBe(2);
      expect(run.err).toContain("no langgraph.json");
    } finally {
      if (previous === undefined) delete process.env.AGENTRT_CONFIG;
      else process.env.AGENTRT_CONFIG = previous;
    }
  });
});
