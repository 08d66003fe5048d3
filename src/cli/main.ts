import { parseArgs } from "node:util";
import { storageFailure } from "../db/index.js";
import { AgentrtError, isUserInputError } from "../errors.js";
import { packageVersion } from "../version.js";
import type { Command, CommandContext, FlagSpec } from "./command.js";
import { commands } from "./commands/index.js";

/** Where the CLI writes; swapped in tests. */
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

const GLOBAL_FLAGS: FlagSpec = {
  db: { type: "string", default: "./agentrt.db" },
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
};

const processIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/**
 * Runs `agentrt <command> ...` and returns the exit code: 0 success (including
 * a run that is waiting), 1 a run failed, 2 bad usage or bad input.
 */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.out(helpText());
    return 0;
  }
  if (name === "--version" || name === "-v") {
    io.out(packageVersion());
    return 0;
  }
  const command = commands.find((c) => c.name === name);
  if (command === undefined) {
    io.err(`agentrt: unknown command "${name}" (see agentrt --help)`);
    return 2;
  }
  let ctx: CommandContext;
  try {
    const options = { ...GLOBAL_FLAGS, ...command.flags };
    const parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true, tokens: true });
    assertGivenOnce(options, parsed.tokens);
    const { db, json, help, ...flags } = parsed.values;
    if (help === true) {
      io.out(commandHelp(command));
      return 0;
    }
    ctx = { db: String(db), json: json === true, args: parsed.positionals, flags, out: io.out, err: io.err };
  } catch (error) {
    io.err(`agentrt ${name}: ${flagError(error)}`);
    return 2;
  }
  try {
    return await command.run(ctx);
  } catch (error) {
    return reportError(name, error, io);
  }
}

function reportError(name: string, thrown: unknown, io: CliIo): number {
  // A full or failing disk is a storage error (exit 2, one line), not an internal error with a stack trace.
  const error = storageFailure(thrown) ?? thrown;
  if (isUserInputError(error)) {
    io.err(`agentrt ${name}: ${firstLine(error)} [${error.code}]`);
    return 2;
  }
  if (error instanceof AgentrtError) {
    io.err(`agentrt ${name}: ${firstLine(error)} [${error.code}]`);
    return 1;
  }
  io.err(`agentrt ${name}: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return 1;
}

/**
 * parseArgs keeps the last of a repeated single-value flag: `approve --action A --action B` would decide B
 * without a word. A flag that takes one value given twice is refused instead (exit 2); switches may repeat.
 */
function assertGivenOnce(options: FlagSpec, tokens: readonly { kind: string; name?: string; rawName?: string }[]): void {
  const seen = new Set<string>();
  for (const token of tokens) {
    const spec = token.name === undefined ? undefined : options[token.name];
    // A repeated switch (`--json --json`) cannot mean two things.
    if (token.kind !== "option" || token.name === undefined || spec?.multiple === true || spec?.type === "boolean") continue;
    if (seen.has(token.name)) throw new Error(`--${token.name} given more than once; give it once`);
    seen.add(token.name);
  }
}

/** parseArgs' reason in one line; for a value starting with a dash, its last line is the one that helps. */
function flagError(error: unknown): string {
  const lines = (error instanceof Error ? error.message : String(error)).split("\n");
  return lines.length > 1 && lines[0]?.includes("is ambiguous") ? `${lines[0]} ${lines.at(-1) ?? ""}`.trim() : firstLine(error);
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0] ?? message;
}

function helpText(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    "agentrt — an agent runtime on LangGraph.js",
    "",
    "Usage: agentrt <command> [options]   (every command takes --db PATH and --json)",
    "",
    "Commands:",
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Exit codes: 0 success or waiting, 1 run failed (also expired or canceled), 2 bad usage or input.",
  ].join("\n");
}

function commandHelp(command: Command): string {
  const lines = [`Usage: ${command.usage}`, "", command.summary, "", "Options:"];
  for (const [flag, spec] of Object.entries({ ...command.flags, ...GLOBAL_FLAGS })) {
    lines.push(`  --${flag}${spec.type === "string" ? " VALUE" : ""}`);
  }
  return lines.join("\n");
}
