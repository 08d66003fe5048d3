// `agentrt run` on a thread whose earlier run still waits: the new run stays QUEUED (runs of a thread go
// one at a time), and the human output says why instead of leaving the user to wait for nothing.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

let db = "";
const cli = (...args: string[]) => runCli([...args, "--db", db]);

beforeEach(() => {
  db = join(mkdtempSync(join(tmpdir(), "agentrt-queued-")), "runs.db");
});

describe("agentrt run behind a waiting run of its thread", () => {
  it("stays QUEUED, exits 0 and explains that a worker will run it", async () => {
    const first = await cli("run", "ops_rollback", "--message", "Why did the payments deploy fail? Roll back if needed.", "--thread", "t1", "--json");
    expect((JSON.parse(first.out) as { status: string }).status).toBe("WAITING_APPROVAL");
    const second = await cli("run", "ops_rollback", "--message", "And the search deploy?", "--thread", "t1");
    expect(second.code).toBe(0);
    expect(second.out).toContain(": QUEUED");
    expect(second.out).toContain("an earlier run of thread t1 is unfinished");
    expect(second.out).toContain(`agentrt worker --once --db ${db}`);
  });

  it("says nothing extra when --queue asked for QUEUED", async () => {
    const queued = await cli("run", "city_weather", "--message", "Weather in Paris", "--queue");
    expect(queued.out).toContain(": QUEUED");
    expect(queued.out).not.toContain("not started here");
  });
});
