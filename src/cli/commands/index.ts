import type { Command } from "../command.js";
import { approveCommand } from "./approve.js";
import { rejectCommand } from "./reject.js";
import { cancelCommand } from "./cancel.js";
import { graphCommand } from "./graph.js";
import { infoCommand } from "./info.js";
import { inputCommand } from "./input.js";
import { runCommand } from "./run.js";
import { runsCommand } from "./runs.js";
import { statusCommand } from "./status.js";
import { workerCommand } from "./worker.js";
import { worldCommand } from "./world.js";
import { statsCommand } from "./stats.js";
import { traceCommand } from "./trace.js";
import { evalCommand } from "./eval.js";
import { serveCommand } from "./serve.js";

/** Every `agentrt` sub-command, in the order `--help` lists them. */
export const commands: readonly Command[] = [
  runCommand, approveCommand, rejectCommand, inputCommand, statusCommand, runsCommand, cancelCommand, workerCommand, graphCommand, worldCommand, traceCommand, statsCommand, evalCommand, serveCommand, infoCommand,
];
