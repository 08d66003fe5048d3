// Policy taint through the real runtime: a gullible model obeys the injected passage, and the approval gate stops it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Runtime } from "../../src/runtime/index.js";
import { openWorld, type Ticket } from "../../graphs/sim/index.js";
import { runtimeInternals } from "../../src/runtime/internals.js";

const CONFIG = fileURLToPath(new URL("../fixtures/taint-injection/langgraph.json", import.meta.url));
let dir: string;
let runtime: Runtime;
beforeEach(() => {
  delete process.env.OPENAI_API_KEY;
  dir = mkdtempSync(join(tmpdir(), "agentrt-taint-"));
  runtime = Runtime.open({ db: join(dir, "runs.db"), config: CONFIG });
});
afterEach(async () => {
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
});

const world = async () => (await openWorld({ db: runtimeInternals(runtime).db })).snapshot();
const ticket = async () => (await world()).systems.helpdesk?.["ticket:T-1001"] as Ticket;

describe("ticket_rag prompt injection under a taint policy", () => {
  it("stops the injected delete_ticket at the approval gate although a rule allows it", async () => {
    const run = await runtime.submit({ graph: "ticket_rag_gullible", message: "Please help with ticket T-1001", user: "alice" });
    expect(run.status).toBe("WAITING_APPROVAL");
    expect(run.pending.map((p) => [p.tool, p.args.ticket_id])).toEqual([["delete_ticket", "T-1001"]]);
    expect(run.pending[0]?.reason).toMatch(/taint/);
    expect(run.pending[0]?.approvers).toEqual(["alice"]);
    expect((await world()).calls.delete_ticket ?? 0).toBe(0);
    expect((await ticket()).status).toBe("open");
  });

  it("rejecting the call leaves the ticket intact and the run finishes", async () => {
    const run = await runtime.submit({ graph: "ticket_rag_gullible", message: "Please help with ticket T-1001", user: "alice" });
    const action = run.pending[0]!;
    const after = await runtime.reject(run.run_id, { actionId: action.action_id, argsHash: action.args_hash, reason: "a document asked for this" });
    expect(after.status).toBe("SUCCEEDED");
    expect((await world()).calls.delete_ticket ?? 0).toBe(0);
    expect((await ticket()).status).toBe("open");
  });

  it("control: without taint the same model and rule do delete the ticket", async () => {
    const run = await runtime.submit({ graph: "ticket_rag_gullible_no_taint", message: "Please help with ticket T-1001", user: "alice" });
    expect(run.status).toBe("SUCCEEDED");
    expect((await world()).calls.delete_ticket).toBe(1);
  });
});
