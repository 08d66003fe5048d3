// A PostgreSQL server agentrt cannot use fails a command with one line naming the server (never the password),
// exit 2, and the process ends instead of hanging on a connection.
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { agentrtProcess } from "../helpers/cli-process.js";
import { schemaExists, TEST_PG_URL, TEST_PASSWORD } from "../helpers/postgres.js";

const COMMANDS = [["trace", "run_x"], ["stats"], ["world"], ["world", "--reset"], ["info"]];

/** A port nothing listens on: one the system just handed out and that was closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function url(change: (url: URL) => void): string {
  const parsed = new URL(TEST_PG_URL);
  parsed.password = TEST_PASSWORD;
  parsed.searchParams.set("schema", "agentrt_errors");
  change(parsed);
  return parsed.toString();
}

async function expectRefused(db: string, code: string, reason: RegExp, commands = COMMANDS): Promise<void> {
  const results = await Promise.all(commands.map((args) => agentrtProcess([...args, "--db", db], { timeoutMs: 45_000 })));
  results.forEach((result, i) => {
    const name = commands[i]![0];
    expect(result.code, `${name}: ${result.stderr}`).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(new RegExp(`^agentrt ${name}: [^\\n]*\\[${code}\\]\\n$`));
    expect(result.stderr).toMatch(reason);
    expect(result.stderr).not.toContain(TEST_PASSWORD);
  });
}

describe("an unusable PostgreSQL server", () => {
  it("a closed port is DB_UNREACHABLE", async () => {
    const port = await closedPort();
    await expectRefused(url((u) => (u.port = String(port))), "DB_UNREACHABLE", new RegExp(`127\\.0\\.0\\.1:${port}/\\w+: cannot connect to PostgreSQL`));
  }, 120_000);

  it("a database that does not exist is DB_OPEN_FAILED", async () => {
    await expectRefused(url((u) => (u.pathname = "/agentrt_no_such_db")), "DB_OPEN_FAILED", /\/agentrt_no_such_db: database "agentrt_no_such_db" does not exist/);
  }, 120_000);

  it("a role the server refuses is DB_AUTH_FAILED", async () => {
    await expectRefused(url((u) => (u.username = "agentrt_no_such_role")), "DB_AUTH_FAILED", /agentrt_no_such_role@[^:]+:\d+\/\w+: authentication failed/, [["stats"], ["info"]]);
  }, 120_000);

  it("sslmode=require against a server without SSL is DB_OPEN_FAILED, one line and exit 2 (not an internal error)", async () => {
    const result = await agentrtProcess(["runs", "--db", url((u) => u.searchParams.set("sslmode", "require"))], { timeoutMs: 45_000 });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe("");
    // The driver may print its own sslmode warning first; agentrt's word is one line, with no stack.
    expect(result.stderr).toMatch(/^agentrt runs: [^\n]*SSL connection refused[^\n]*\[DB_OPEN_FAILED\]\n$/m);
    expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
  }, 120_000);

  it.each(["pg_catalog", "pg_toast", "pg_temp"])("?schema=%s is DB_URL_INVALID, one line and exit 2", async (schema) => {
    await expectRefused(url((u) => u.searchParams.set("schema", schema)), "DB_URL_INVALID", new RegExp(`schema "${schema}" is reserved by PostgreSQL`), [["runs"], ["info"]]);
  }, 120_000);

  it("options that move the search path or the role are refused before any table is made", async () => {
    const db = url((u) => {
      u.searchParams.set("schema", "agentrt_errors_x");
      u.searchParams.set("options", "-c search_path=agentrt_errors_y");
    });
    await expectRefused(db, "DB_URL_INVALID", /options may not set search_path/, [["runs"], ["info"]]);
    expect(await schemaExists("agentrt_errors_y")).toBe(false);
    expect(await schemaExists("agentrt_errors_x")).toBe(false);
  }, 120_000);
});
