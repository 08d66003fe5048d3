import { UserInputError } from "../../errors.js";
import type { Command } from "../command.js";
import { withRuntime } from "../runtime-context.js";
import { parseInteger } from "./run.js";

/** `agentrt worker`: claims queued runs from the database and executes them, with leases and heartbeats. */
export const workerCommand: Command = {
  name: "worker",
  summary: "Execute queued runs from the database (several workers may share one file)",
  usage: "agentrt worker [--concurrency N] [--once] [--worker-id ID] [--lease-ms MS]",
  flags: {
    concurrency: { type: "string" },
    once: { type: "boolean", default: false },
    "worker-id": { type: "string" },
    "lease-ms": { type: "string" },
  },
  async run(ctx) {
    if (ctx.args.length > 0) throw new UserInputError("BAD_INPUT", "usage: agentrt worker [--concurrency N] [--once]");
    const concurrency = parseInteger(ctx.flags.concurrency as string | undefined, "--concurrency") ?? 1;
    const leaseMs = parseInteger(ctx.flags["lease-ms"] as string | undefined, "--lease-ms");
    if (concurrency < 1) throw new UserInputError("BAD_INPUT", "--concurrency must be at least 1");
    if (leaseMs !== undefined && leaseMs < 50) throw new UserInputError("BAD_INPUT", "--lease-ms must be at least 50");
    return withRuntime(ctx, async (runtime) => {
      const worker = runtime.worker({
        concurrency, leaseMs, once: ctx.flags.once === true, workerId: ctx.flags["worker-id"] as string | undefined,
      });
      // SIGTERM/SIGINT: stop claiming, let active runs reach their next rest, then exit.
      const stop = () => void worker.stop();
      process.once("SIGTERM", stop);
      process.once("SIGINT", stop);
      if (!ctx.json) ctx.err(`worker ${worker.workerId}: concurrency ${concurrency}${ctx.flags.once === true ? ", until the queue is empty" : ""}`);
      try {
        const stats = await worker.run();
        if (ctx.json) ctx.out(JSON.stringify({ worker_id: worker.workerId, ...stats }));
        else ctx.out(`worker ${worker.workerId}: claimed ${stats.claimed}, finished ${JSON.stringify(stats.finished)}, lost ${stats.lost}`);
        return 0;
      } finally {
        process.off("SIGTERM", stop);
        process.off("SIGINT", stop);
      }
    });
  },
};
