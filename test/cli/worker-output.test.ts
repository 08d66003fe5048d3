// A queued run says a worker is needed and how to start one; the worker prints each run's outcome.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { cliOnDb } from "../helpers/cli.js";

let db = "";
beforeEach(() => {
  db = join(mkdtempSync(join(tmpdir(), "agentrt-worker-out-")), "runs.db");
});
const { cli, json } = cliOnDb<{ run_id: string; status: string }>(() => db);

describe("run --queue and worker", () => {
  it("run --queue says how to start a worker", async () => {
    const { code, out } = await cli("run", "city_weather", "--message", "Weather in Paris", "--queue");
    expect(code).toBe(0);
    expect(out).toContain(": QUEUED");
    expect(out).toContain(`agentrt worker --db ${db}`);
  });

  it("worker prints one line per run: id, graph, status and the answer or what it waits for", async () => {
    const weather = (await json("run", "city_weather", "--message", "Weather for Beijing", "--queue")).view.run_id;
    const rollback = (await json("run", "ops_rollback", "--message", "Why did the payments deploy fail? Roll back if needed.", "--user", "alice", "--queue")).view.run_id;
    const { code, outLines } = await cli("worker", "--once");
    expect(code).toBe(0);
    const lineOf = (id: string) => outLines.filter((l) => l.startsWith(id));
    expect(lineOf(weather)).toHaveLength(1);
    expect(lineOf(weather)[0]).toMatch(new RegExp(`^${weather} +city_weather +SUCCEEDED +\\S.*Beijing`));
    expect(lineOf(rollback)).toHaveLength(1);
    expect(lineOf(rollback)[0]).toMatch(new RegExp(`^${rollback} +ops_rollback +WAITING_APPROVAL +.*rollback_deployment`));
    // The summary line scripts read stays as it was.
    expect(outLines.at(-1)).toMatch(/^worker \S+: claimed 2, finished /);
  });

  it("worker --json prints only its one JSON object", async () => {
    await json("run", "city_weather", "--message", "Weather in Paris", "--queue");
    const { code, out, err } = await cli("worker", "--once", "--json");
    expect(code).toBe(0);
    expect(err).toBe("");
    expect(JSON.parse(out)).toMatchObject({ claimed: 1, finished: { SUCCEEDED: 1 } });
  });
});
