/** One option of a command: how the parser reads it and what `--help` says about it. */
export interface CommandOption {
  type: "string" | "boolean";
  short?: string;
  /** The option may be given several times; its values are collected in order. */
  multiple?: boolean;
  default?: string | boolean;
  /** The value's name in help (`N`, `JSON`, `TEXT`). @default "VALUE" */
  value?: string;
  /** One sentence for `--help`: what the option does. */
  description: string;
  /** The accepted values: matched regardless of case and handed to the command in this spelling. */
  choices?: readonly string[];
}

/** A command's options by long name (without the dashes). */
export type FlagSpec = Record<string, CommandOption>;

/** What every command receives: the global flags and where to write. */
export interface CommandContext {
  /** A SQLite file's path or a postgres:// URL (`--db`, default AGENTRT_DATABASE_URL, else `./agentrt.db`). */
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
  /** Further sentences for `agentrt <command> --help`, after the summary. @default none */
  details?: readonly string[];
  /** The command's own flags; `--db`, `--json` and `--help` are added for every command. */
  flags: FlagSpec;
  /** Command lines a user can copy, shown by `agentrt <command> --help`; each starts with `agentrt <name>`. */
  examples: readonly string[];
  /** Runs the command and returns the process exit code (0 ok or waiting, 1 run failed). */
  run(ctx: CommandContext): Promise<number>;
}
