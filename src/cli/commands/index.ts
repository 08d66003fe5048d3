import type { Command } from "../command.js";
import { infoCommand } from "./info.js";
import { statsCommand } from "./stats.js";
import { traceCommand } from "./trace.js";

/** Every `agentrt` sub-command, in the order `--help` lists them. */
export const commands: readonly Command[] = [infoCommand, traceCommand, statsCommand];
