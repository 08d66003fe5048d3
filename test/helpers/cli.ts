// Runs the agentrt CLI in-process with captured output, as the CLI tests need it.
import { expect } from "vitest";
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

/**
 * `agentrt … --db <file>` for tests that use a new file per test (`db` is read at each call), and its
 * `--json` form: stderr must be empty, stdout parses as `View`.
 */
export function cliOnDb<View>(db: () => string) {
  const cli = (...args: string[]) => runCli([...args, "--db", db()]);
  const json = async (...args: string[]): Promise<{ code: number; view: View }> => {
    const result = await cli(...args, "--json");
    expect(result.err).toBe("");
    return { code: result.code, view: JSON.parse(result.out) as View };
  };
  return { cli, json };
}
