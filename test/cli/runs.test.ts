// `agentrt runs`: newest first whatever the priority, so --limit keeps the latest runs.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

describe("agentrt runs", () => {
  it("lists runs newest first (not in claim order) and --limit keeps the newest", async () => {
    const db = join(mkdtempSync(join(tmpdir(), "agentrt-runs-")), "runs.db");
    const ids: string[] = [];
    // A high-priority run in the middle: claim order would list it first.
    for (const priority of ["0", "5", "0"]) {
      const queued = await runCli(["run", "order_delay", "--message", "order 10086", "--queue", "--priority", priority, "--db", db, "--json"]);
      expect(queued.code).toBe(0);
      ids.push((JSON.parse(queued.out) as { run_id: string }).run_id);
    }
    const list = async (...extra: string[]) =>
      (JSON.parse((await runCli(["runs", "--db", db, "--json", ...extra])).out) as { runs: { run_id: string }[] }).runs.map((r) => r.run_id);
    expect(await list()).toEqual([...ids].reverse());
    expect(await list("--limit", "1")).toEqual([ids[2]]);
  });
});
