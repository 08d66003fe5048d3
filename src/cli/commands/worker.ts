import { UserInputError } from "../../errors.js";
import type { Runtime, RuntimeEvent } from "../../runtime/index.js";
import type { Command, CommandContext } from "../command.js";
import { dbFlag } from "../print-run.js";
import { projectGraphs } from "../project-graphs.js";
import { RESTING_STATUSES, runOutcomeLine } from "../run-outcome-line.js";
import { withRuntime } from "../runtime-context.js";
import { tenantWeightOptions } from "../tenant-weights.js";
import { parseInteger } from "./run.js";

/** `agentrt worker`: claims queued runs from the database and executes them, with leases and heartbeats. */
export const workerCommand: Command = {
  name: "worker",
  summary: "Execute queued runs from the database (several workers may share one file)",
  usage: "agentrt worker [--concurrency N] [--once] [--worker-id ID] [--lease-ms MS] [--tenant-weight NAME=W]...",
  details: [
    "Prints one line per run it executed: id, graph, status, and the answer or what the run waits for.",
    "Stops on SIGINT/SIGTERM after the runs it executes reach their next rest.",
  ],
  flags: {
    concurrency: { type: "string", value: "N", description: "Execute up to N runs at once. Default: 1." },
    once: { type: "boolean", default: false, description: "Exit once nothing is left to claim, instead of waiting for new runs." },
    "worker-id": { type: "string", value: "ID", description: "The name this worker holds leases under (shown in run events). Default: host, pid and a random suffix." },
    "lease-ms": { type: "string", value: "MS", description: "How long a claim lasts without a heartbeat before another worker may recover the run (at least 50)." },
    "tenant-weight": {
      type: "string", multiple: true, value: "NAME=W",
      description: "Claim by fair shares among tenants (a run's user), NAME weighing W (others 1); priority orders within a tenant. Default: AGENTRT_TENANT_WEIGHTS, else none.",
    },
  },
  examples: ["agentrt worker", "agentrt worker --once", "agentrt worker --concurrency 4 --worker-id w1", "agentrt worker --tenant-weight acme=3 --tenant-weight beta=1"],
  async run(ctx) {
    if (ctx.args.length > 0) throw new UserInputError("BAD_INPUT", "usage: agentrt worker [--concurrency N] [--once]");
    const concurrency = parseInteger(ctx.flags.concurrency as string | undefined, "--concurrency") ?? 1;
    const leaseMs = parseInteger(ctx.flags["lease-ms"] as string | undefined, "--lease-ms");
    if (concurrency < 1) throw new UserInputError("BAD_INPUT", "--concurrency must be at least 1");
    if (leaseMs !== undefined && leaseMs < 50) throw new UserInputError("BAD_INPUT", "--lease-ms must be at least 50");
    const tenantWeights = (ctx.flags["tenant-weight"] as string[] | undefined) ?? [];
    tenantWeightOptions(tenantWeights);
    // Outside a project it could only claim runs to fail them.
    projectGraphs("a worker runs the graphs it lists");
    const once = ctx.flags.once === true;
    let runtime: Runtime | undefined;
    // Each outcome line reads the run; the summary waits for those lines, so it stays last.
    const printing = new Set<Promise<void>>();
    const onEvent = (event: RuntimeEvent): void => {
      const line = printOutcome(ctx, runtime, event).finally(() => printing.delete(line));
      printing.add(line);
    };
    // --once on a file that does not exist has nothing to run: refused (exit 2) rather than created empty.
    return withRuntime(ctx, async (opened) => {
      runtime = opened;
      const worker = opened.worker({ concurrency, leaseMs, once, workerId: ctx.flags["worker-id"] as string | undefined });
      // SIGTERM/SIGINT: stop claiming, let active runs reach their next rest, then exit.
      const stop = () => void worker.stop();
      process.once("SIGTERM", stop);
      process.once("SIGINT", stop);
      if (!ctx.json) ctx.err(`worker ${worker.workerId}: concurrency ${concurrency}${once ? ", until the queue is empty" : ""}`);
      try {
        const stats = await worker.run();
        await Promise.all(printing);
        if (ctx.json) ctx.out(JSON.stringify({ worker_id: worker.workerId, ...stats }));
        else ctx.out(`worker ${worker.workerId}: claimed ${stats.claimed}, finished ${JSON.stringify(stats.finished)}, lost ${stats.lost}`);
        return 0;
      } finally {
        process.off("SIGTERM", stop);
        process.off("SIGINT", stop);
      }
    }, { mustExist: once, onEvent, tenantWeights });
  },
};

/** One line per run that came to rest here (human mode). */
async function printOutcome(ctx: CommandContext, runtime: Runtime | undefined, event: RuntimeEvent): Promise<void> {
  if (ctx.json || runtime === undefined || event.type !== "status" || !RESTING_STATUSES.has(event.status)) return;
  try {
    ctx.out(runOutcomeLine(await runtime.get(event.runId), dbFlag(ctx)));
  } catch {
    // A listener must not throw: the run is recorded whatever this line says.
    ctx.out(`${event.runId}  ${event.status}`);
  }
}
