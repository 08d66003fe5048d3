/**
 * A tool with a side effect, through agentrt's ledger: a crash after the tool acted never makes it act twice.
 * Run the invoice agent (examples/invoice-agent.ts), kill it right after the invoice went out (before the step
 * was saved), and recover in another process:
 *   CRASH_AFTER_SEND=1 npx tsx examples/ledger-tool.ts run   # killed (SIGKILL) once the invoice is sent
 *   npx tsx examples/ledger-tool.ts recover                   # resumes the run: the invoice is not sent again
 * @module
 */
import { fileURLToPath } from "node:url";
import { Runtime } from "agentrt";
import { outbox } from "./invoice-agent.js";

// A short lease, so the recovering process may take the crashed run over after one second.
const db = process.env.AGENTRT_DB ?? "./agentrt.db";
const runtime = Runtime.open({ db, config: fileURLToPath(new URL("langgraph.json", import.meta.url)), leaseMs: 1000 });
try {
  if (process.argv[2] === "run") {
    const run = await runtime.submit({ graph: "invoice_agent", message: "Invoice acme for 120", user: "alice" });
    console.log(`${run.run_id} ${run.status}`);
  } else {
    // Recovery is what any worker does: claim the run once its lease expired and resume from the last checkpoint.
    let [run] = await runtime.list({ limit: 1 });
    while (run !== undefined && (run.status === "RUNNING" || run.status === "RETRYING")) {
      await runtime.worker({ once: true }).run();
      await new Promise((resolve) => setTimeout(resolve, 200));
      run = await runtime.get(run.run_id);
    }
    console.log(`${run?.run_id ?? "no run"} ${run?.status ?? ""}: ${String(run?.result)}`);
    console.log(`invoices in the outbox: ${outbox().sent.length}`);
  }
} finally {
  await runtime.close();
}
