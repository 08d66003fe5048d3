// Without --db, every command uses AGENTRT_DATABASE_URL when set, else ./agentrt.db; printed follow-up commands name
// --db only when it differs from what they would find without it.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { defaultDatabase } from "../../src/cli/default-database.js";
import { runCli } from "../helpers/cli.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("the default --db", () => {
  it("is AGENTRT_DATABASE_URL when set and not blank, else ./agentrt.db", () => {
    expect(defaultDatabase({})).toBe("./agentrt.db");
    expect(defaultDatabase({ AGENTRT_DATABASE_URL: "" })).toBe("./agentrt.db");
    expect(defaultDatabase({ AGENTRT_DATABASE_URL: "postgres://127.0.0.1/test?schema=shop" })).toBe("postgres://127.0.0.1/test?schema=shop");
  });

  it("reaches every command: a run queued through the environment is found by status, and no --db is printed", async () => {
    const db = join(mkdtempSync(join(tmpdir(), "agentrt-env-db-")), "env.db");
    vi.stubEnv("AGENTRT_DATABASE_URL", db);
    const run = await runCli(["run", "city_weather", "--message", "Weather in Paris?", "--queue"]);
    expect(run.code).toBe(0);
    expect(run.out).not.toContain("--db");
    const runId = /run_[0-9A-Z]+/.exec(run.out)?.[0] ?? "";
    const status = await runCli(["status", runId, "--json"]);
    expect(JSON.parse(status.out)).toMatchObject({ run_id: runId, status: "QUEUED" });
    // Given explicitly, --db wins over the environment.
    const elsewhere = await runCli(["status", runId, "--db", join(tmpdir(), "agentrt-no-such.db")]);
    expect(elsewhere.code).toBe(2);
  });
});

describe("a postgres:// --db with a role the server does not know", () => {
  it("is refused in one line naming the server without the password, exit 2", async () => {
    const { code, err, errLines } = await runCli(["runs", "--db", "postgres://agent:s3cret@127.0.0.1:5432/test?schema=shop"]);
    expect(code).toBe(2);
    expect(errLines).toHaveLength(1);
    expect(err).toContain("agent@127.0.0.1:5432/test");
    expect(err).toContain("[DB_AUTH_FAILED]");
    expect(err).not.toContain("s3cret");
  });
});
