// The worker-process count of `agentrt serve`: --workers N|auto, env AGENTRT_SERVE_WORKERS, refused with one line (exit 2) when bad.
import { mkdtempSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { startServer } from "../../src/server/server.js";
import { workerCount } from "../../src/server/worker-pool.js";

describe("worker-process count", () => {
  it("reads integers and auto, and refuses anything else naming its source", () => {
    expect(workerCount(undefined, "--workers")).toBe(0);
    expect(workerCount("", "--workers")).toBe(0);
    expect(workerCount("3", "--workers")).toBe(3);
    expect(workerCount(2, "workers")).toBe(2);
    expect(workerCount("auto", "--workers")).toBe(availableParallelism() > 1 ? Math.min(64, availableParallelism()) : 0);
    for (const bad of ["-1", "1.5", "two", "65", " 1e2"]) expect(() => workerCount(bad, "--workers")).toThrow(/--workers must be an integer 0\.\.64 or "auto"/);
    expect(() => workerCount(-1, "workers")).toThrow(/workers must be/);
  });

  it("agentrt serve --workers with a bad value exits 2 with one line, before opening anything", async () => {
    const err: string[] = [];
    const db = join(mkdtempSync(join(tmpdir(), "agentrt-workers-flag-")), "agentrt.db");
    const code = await main(["serve", "--workers", "lots", "--db", db, "--port", "0"], { out: () => undefined, err: (line) => err.push(line) });
    expect(code).toBe(2);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/^agentrt serve: --workers must be an integer 0\.\.64 or "auto", got lots \[BAD_INPUT\]$/);
  });

  it("refuses worker processes on an in-memory database (they could never see its runs)", async () => {
    await expect(startServer({ port: 0, db: ":memory:", workers: 1, log: () => undefined })).rejects.toThrow(/need a database file/);
  });

  it("refuses a bad AGENTRT_SERVE_WORKERS", async () => {
    const before = process.env.AGENTRT_SERVE_WORKERS;
    process.env.AGENTRT_SERVE_WORKERS = "many";
    try {
      await expect(startServer({ port: 0, db: join(mkdtempSync(join(tmpdir(), "agentrt-workers-env-")), "agentrt.db"), log: () => undefined })).rejects.toThrow(/AGENTRT_SERVE_WORKERS must be/);
    } finally {
      if (before === undefined) delete process.env.AGENTRT_SERVE_WORKERS;
      else process.env.AGENTRT_SERVE_WORKERS = before;
    }
  });
});
