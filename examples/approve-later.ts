import { fileURLToPath } from "node:url";
import { Runtime } from "agentrt";

// npx tsx examples/approve-later.ts start             → run_… WAITING_APPROVAL, and what it waits for
// npx tsx examples/approve-later.ts approve <run_id>  → any process, any time later: run_… SUCCEEDED
const runtime = Runtime.open({ db: process.env.AGENTRT_DB ?? "./agentrt.db", config: fileURLToPath(new URL("langgraph.json", import.meta.url)) });
const [command, runId] = process.argv.slice(2);
try {
  if (command === "start") {
    const run = await runtime.submit({ graph: "refund_agent", message: "Refund order 10086", user: "alice" });
    console.log(`${run.run_id} ${run.status}`);
    for (const action of run.pending) console.log(`  waits for approval: ${action.tool} ${JSON.stringify(action.args)} (action ${action.action_id})`);
  } else if (command === "approve" && runId !== undefined) {
    let run = await runtime.get(runId);
    for (const action of run.pending) run = await runtime.approve(runId, { actionId: action.action_id, argsHash: action.args_hash, by: "alice" });
    console.log(`${run.run_id} ${run.status}: ${String(run.result)}`);
  } else {
    console.error("usage: approve-later.ts start | approve <run_id>");
    process.exitCode = 2;
  }
} finally {
  await runtime.close();
}
