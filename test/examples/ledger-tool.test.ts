// examples/ledger-tool.ts: a process killed right after its side effect was done; another recovers the run and the
// ledger replays the recorded result instead of calling the tool again.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exampleDir, runExample } from "./run-example.js";

describe("examples/ledger-tool.ts", () => {
  it("sends the invoice once although the process died after sending it", async () => {
    const db = join(exampleDir(), "agentrt.db");
    const crashed = await runExample("examples/ledger-tool.ts", ["run"], { AGENTRT_DB: db, CRASH_AFTER_SEND: "1" });
    expect(crashed.signal).toBe("SIGKILL");
    expect((JSON.parse(readFileSync(`${db}.outbox.json`, "utf8")) as { sent: unknown[] }).sent).toHaveLength(1);

    const recovered = await runExample("examples/ledger-tool.ts", ["recover"], { AGENTRT_DB: db });
    expect(recovered.stderr).toBe("");
    expect(recovered.code).toBe(0);
    expect(recovered.stdout).toMatch(/^run_\w+ SUCCEEDED: Invoice sent to acme\.$/m);
    expect(recovered.stdout).toMatch(/^invoices in the outbox: 1$/m);
  }, 180_000);
});
