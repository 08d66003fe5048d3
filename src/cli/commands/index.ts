import type { Command } from "../command.js";
import { infoCommand } from "./info.js";

/** Every `agentrt` sub-command, in the order `--help` lists them. */
export const commands: readonly Command[] = [infoCommand];
