// `npm run demo` end to end: the run pauses in one process and is approved and resumed by another.
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("npm run demo", () => {
  it("pauses in one process, resumes in another, and rolls back exactly once", () => {
    const db = join(mkdtempSync(join(tmpdir(), "agentrt-demo-")), "demo.db");
    const result = spawnSync(process.execPath, ["--import", "tsx", "scripts/demo.ts"], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, AGENTRT_DEMO_DB: db, OPENAI_API_KEY: "" },
    });
    expect(result.stderr).not.toMatch(/internal error/);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("WAITING_APPROVAL");
    expect(result.stdout).toContain("SUCCEEDED");
    expect(result.stdout).toMatch(/rollback_deployment: 1\n/);
    expect(result.stdout).toContain("execute_tool rollback_deployment");
  }, 240_000);
});
