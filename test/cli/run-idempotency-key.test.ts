// `agentrt run --idempotency-key`: run again with the same key (a retry after the first invocation's outcome was
// lost) shows the first run instead of starting a second; the key with other flags exits 2 with one line.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

describe("agentrt run --idempotency-key", () => {
  it("shows the first run on a retry and refuses the key with another message", async () => {
    const db = join(mkdtempSync(join(tmpdir(), "agentrt-idem-")), "runs.db");
    const run = (message: string) => runCli(["run", "city_weather", "--message", message, "--idempotency-key", "job-42", "--db", db, "--json"]);
    const first = await run("Weather in Paris");
    const again = await run("Weather in Paris");
    expect(first.code).toBe(0);
    expect(again.code).toBe(0);
    expect((JSON.parse(again.out) as { run_id: string }).run_id).toBe((JSON.parse(first.out) as { run_id: string }).run_id);
    const other = await run("Weather in Rome");
    expect(other.code).toBe(2);
    expect(other.errLines).toHaveLength(1);
    expect(other.err).toContain("IDEMPOTENCY_KEY_REUSED");
    const runs = await runCli(["runs", "--db", db, "--json"]);
    expect((JSON.parse(runs.out) as { runs: unknown[] }).runs).toHaveLength(1);
  });
});
