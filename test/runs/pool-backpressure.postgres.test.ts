// A worker whose concurrency is far above its pool: waits for a pooled connection hold runs back, never fail them.
// 60 city_weather runs, a worker of concurrency 40 on a pool of 3 whose wait for a connection's turn is 0.2 s:
// every run succeeds at its first attempt and every tool call reaches the simulated world exactly once.
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { PostgresDatabase } from "../../src/db/postgres/index.js";
import { Runtime } from "../../src/runtime/index.js";
import { runtimeInternals } from "../../src/runtime/internals.js";
import { openWorld } from "../../src/testing/index.js";
import { useTestSchema } from "../helpers/postgres.js";

const schema = useTestSchema(import.meta.url);
const REPO = fileURLToPath(new URL("../../langgraph.json", import.meta.url));
const RUNS = 60;

const opened: Runtime[] = [];
afterEach(async () => {
  for (const rt of opened.splice(0)) await rt.close();
});

describe("a worker on a pool far smaller than its concurrency", () => {
  it("runs 60 city_weather runs with no retry and every tool call made once", async () => {
    const url = `${schema.fresh("bp").url}&pool_max=3&connect_timeout=0.2`;
    const rt = Runtime.open({ db: url, config: REPO });
    opened.push(rt);
    await rt.ready();
    const ids: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      ids.push((await rt.submit({ graph: "city_weather", message: "Weather for Beijing, Shanghai and Shenzhen", user: `u${i % 5}`, queue: true })).run_id);
    }
    const stats = await rt.worker({ concurrency: 40, once: true, pollMs: 10 }).run();
    expect(stats).toMatchObject({ claimed: RUNS, lost: 0, finished: { SUCCEEDED: RUNS } });
    const runs = runtimeInternals(rt).runs;
    const attempts = await Promise.all(ids.map(async (id) => (await runs.get(id)).attempts));
    expect(attempts).toEqual(Array(RUNS).fill(1));
    const world = await openWorld({ db: runtimeInternals(rt).storage.db as PostgresDatabase }).snapshot();
    expect(world.calls).toEqual({ get_weather: 3 * RUNS });
  }, 300_000);
});
