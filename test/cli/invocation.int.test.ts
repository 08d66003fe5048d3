// A paused run printed by the checkout's sources, run as from a shell: the commands it prints to paste start with
// `npm run agentrt --` (agentrt itself is not on the PATH of a checkout).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentrtProcess } from "../helpers/cli-process.js";

describe("a paused run printed by the checkout's sources", () => {
  it("prints approve and reject commands that start with npm run agentrt --", async () => {
    const db = join(mkdtempSync(join(tmpdir(), "agentrt-inv-")), "r.db");
    // As `node --import tsx src/cli/bin.ts` from a shell: no npm in between.
    const env = { npm_lifecycle_event: undefined, npm_command: undefined, OPENAI_API_KEY: undefined };
    const result = await agentrtProcess(["run", "ops_rollback", "-m", "Why did the payments deploy fail?", "--db", db], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^    approve: npm run agentrt -- approve run_\\S+ --action \\S+ --args-hash \\S+ --db ${db}$`, "m"));
    expect(result.stdout).toMatch(/^ {4}reject: {2}npm run agentrt -- reject run_/m);
  });
});
