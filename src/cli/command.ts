import type { ParseArgsConfig } from "node:util";

/** Flag definitions in node:util parseArgs form. */
export type FlagSpec = NonNullable<ParseArgsConfig["options"]>;

/** What every command receives: the global flags and where to write. */
export interface CommandContext {
  /** Path of the SQLite file (`--db`, default `./agentrt.db`). */
  db: string;
  /** `--json`: print exactly one JSON object on stdout and nothing else. */
  json: boolean;
  /** Positional arguments after the command name. */
  args: string[];
  /** The command's own flags, parsed. */
  flags: Record<string, string | boolean | (string | boolean)[] | undefined>;
  /** Human output and the single JSON object go here. */
  out: (line: string) => void;
  /** Progress and diagnostics; never parsed by scripts. */
  err: (line: string) => void;
}

/** One `agentrt` sub-command. */
export interface Command {
  name: string;
  /** One line for `agentrt --help`. */
  summary: string;
  /** Usage line(s) shown by `agentrt <command> --help`. */
  usage: string;
  /** The command's own flags; `--db`, `--json` and `--help` are added for every command. */
  flags: FlagSpec;
  /** Runs the command and returns the process exit code (0 ok or waiting, 1 run failed). */
  run(ctx: CommandContext): Promise<number>;
}
