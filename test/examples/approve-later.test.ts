// The README's "Defining an agent", as shipped in examples/: the run pauses in one process, a second process
// approves it, and the README shows exactly these files.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exampleDir, repoFile, runExample } from "./run-example.js";

describe("examples/approve-later.ts", () => {
  it("pauses WAITING_APPROVAL in one process and is approved in another", async () => {
    const env = { AGENTRT_DB: join(exampleDir(), "agentrt.db") };
    const start = await runExample("examples/approve-later.ts", ["start"], env);
    expect(start.stderr).toBe("");
    expect(start.code).toBe(0);
    const [, runId] = /^(run_\w+) WAITING_APPROVAL$/m.exec(start.stdout) ?? [];
    expect(runId, start.stdout).toBeDefined();
    expect(start.stdout).toMatch(/waits for approval: refund \{"id":"10086"\}/);
    expect(start.stdout).not.toMatch(/null/);

    const approve = await runExample("examples/approve-later.ts", ["approve", runId!], env);
    expect(approve.stderr).toBe("");
    expect(approve.stdout.trim()).toBe(`${runId} SUCCEEDED: Order 10086 was delayed; it is refunded now.`);
    expect(approve.code).toBe(0);
  }, 180_000);

  it("is what the README shows, imports included", () => {
    const readme = repoFile("README.md");
    for (const file of ["examples/refund-agent.ts", "examples/approve-later.ts"]) {
      expect(readme, `${file} is not in README.md verbatim`).toContain("```ts\n" + repoFile(file) + "```");
    }
  });
});
