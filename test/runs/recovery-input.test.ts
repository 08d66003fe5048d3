// New turn or crash recovery: decided by whether the thread's latest checkpoint was written by this run.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { Scheduler } from "../../src/runs/index.js";
import { Runtime } from "../../src/runtime/index.js";
import { tempDbPath } from "./helpers.js";
import { runtimeInternals } from "../../src/runtime/internals.js";

const CONFIG = join(fileURLToPath(new URL("../..", import.meta.url)), "langgraph.json");
const opened: Runtime[] = [];

beforeAll(async () => {
  process.env.AGENTRT_SIM_LATENCY_MS = "0";
});
afterEach(async () => {
  for (const rt of opened.splice(0)) await rt.close();
});

function open(options: Parameters<typeof Runtime.open>[0] = {}): Runtime {
  const rt = Runtime.open({ db: tempDbPath(), config: CONFIG, ...options });
  opened.push(rt);
  return rt;
}

async function humanTurns(rt: Runtime, threadId: string): Promise<string[]> {
  const graph = (await rt.registry.load("city_weather")) as unknown as { getState(c: object): Promise<{ values: { messages: { getType(): string; content: unknown }[] } }> };
  const state = await graph.getState({ configurable: { thread_id: threadId } });
  return state.values.messages.filter((m) => m.getType() === "human").map((m) => String(m.content));
}

describe("the input of a run on a thread", () => {
  it("reaches a later turn whose first attempt died before its first checkpoint", async () => {
    const rt = open();
    expect((await rt.submit({ graph: "city_weather", message: "Weather for Beijing", threadId: "t" })).status).toBe("SUCCEEDED");
    const second = await rt.submit({ graph: "city_weather", message: "Weather for Tokyo", threadId: "t", queue: true });
    // Attempt 1 claimed it and stopped before writing anything (here: handed back at once, so not counted).
    await (await new Scheduler(runtimeInternals(rt).runs).claimRun(second.run_id, { workerId: "dead", leaseMs: 60_000 }))!.lease.release("worker died");
    const done = await rt.start(second.run_id);
    expect(done).toMatchObject({ status: "SUCCEEDED" });
    expect(await runtimeInternals(rt).runs.get(second.run_id)).toMatchObject({ attempts: 1, fencingToken: 2 });
    expect(await humanTurns(rt, "t")).toEqual(["Weather for Beijing", "Weather for Tokyo"]);
  });

  it("is not sent again when an attempt that had checkpointed is recovered", async () => {
    let stop: () => void = () => {};
    const rt = open({ onEvent: (e) => e.type === "model_call" && stop() });
    const first = await rt.submit({ graph: "city_weather", message: "Weather for Beijing", threadId: "t", queue: true });
    const worker = rt.worker({ pollMs: 5 });
    stop = () => {
      stop = () => {};
      void worker.stop({ abort: true });
    };
    expect(await worker.run()).toMatchObject({ released: 1 });
    // Handed back by a stopping worker: that attempt is not counted.
    expect(await runtimeInternals(rt).runs.get(first.run_id)).toMatchObject({ status: "RETRYING", attempts: 0 });
    expect(await humanTurns(rt, "t")).toEqual(["Weather for Beijing"]);
    await rt.worker({ once: true, pollMs: 5 }).run();
    expect(await runtimeInternals(rt).runs.get(first.run_id)).toMatchObject({ status: "SUCCEEDED", attempts: 1, fencingToken: 2 });
    expect(await humanTurns(rt, "t")).toEqual(["Weather for Beijing"]);
  });
});
