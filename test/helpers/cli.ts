// Runs the agentrt CLI in-process with captured output, as the CLI tests need it.
import { main } from "../../src/cli/main.js";

/** What one CLI invocation printed and returned. */
export interface CliResult {
  code: number;
  /** stdout and stderr joined with newlines. */
  out: string;
  err: string;
  /** The same, line by line. */
  outLines: string[];
  errLines: string[];
}

/** Calls `main(args)` with stdout/stderr captured. */
export async function runCli(args: string[]): Promise<CliResult> {
  const outLines: string[] = [];
  const errLines: string[] = [];
  const code = await main(args, { out: (l) => outLines.push(l), err: (l) => errLines.push(l) });
  return { code, out: outLines.join("\n"), err: errLines.join("\n"), outLines, errLines };
}
