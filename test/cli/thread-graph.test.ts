// A thread's checkpoints are one graph's state: `agentrt run` of another graph on it is refused (exit 2,
// nothing stored) instead of queued to run on a foreign conversation.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

describe("agentrt run on another graph's thread", () => {
  it("is refused in one line and stores nothing", async () => {
    const db = join(mkdtempSync(join(tmpdir(), "agentrt-thread-graph-")), "runs.db");
    const first = await runCli(["run", "ops_rollback", "--message", "Why did the payments deploy fail? Roll back if needed.", "--thread", "t1", "--db", db, "--json"]);
    expect((JSON.parse(first.out) as { status: string }).status).toBe("WAITING_APPROVAL");
    const other = await runCli(["run", "city_weather", "--message", "Weather for Beijing", "--thread", "t1", "--db", db, "--json"]);
    expect(other.code).toBe(2);
    expect(other.out).toBe("");
    expect(other.err).toMatch(/thread t1 belongs to graph ops_rollback, not city_weather: use another thread \[BAD_INPUT\]/);
    const runs = JSON.parse((await runCli(["runs", "--db", db, "--json"])).out) as { runs: unknown[] };
    expect(runs.runs).toHaveLength(1);
  });
});
