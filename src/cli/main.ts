import { storageFailure } from "../db/index.js";
import { AgentrtError, isUserInputError } from "../errors.js";
import { MODEL_TIMEOUT_ENV, parseModelTimeout } from "../models/model-timeout.js";
import { packageVersion } from "../version.js";
import type { Command, CommandContext, FlagSpec } from "./command.js";
import { COMMAND_LOADERS } from "./commands/loaders.js";
import { defaultDatabase } from "./default-database.js";
import { commandHelp, globalHelp } from "./help-text.js";
import { asksForHelp, parseCommandLine } from "./parse-command-line.js";

/** Where the CLI writes; swapped in tests. */
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

const GLOBAL_FLAGS: FlagSpec = {
  db: {
    type: "string", value: "PATH|URL",
    description: "Where runs, checkpoints, traces and the simulated world live: a SQLite file, or a postgres:// URL (?schema=NAME). Default: AGENTRT_DATABASE_URL, else ./agentrt.db.",
  },
  json: { type: "boolean", default: false, description: "Print exactly one JSON object on stdout and nothing else (for scripts)." },
  help: { type: "boolean", short: "h", default: false, description: "Show the command's options and examples instead of running it." },
  "model-timeout-ms": {
    type: "string", value: "N",
    description: "How long one HTTP attempt of a real model (OPENAI_API_KEY set) waits for its answer before the client retries, for the runs this command executes. Default: AGENTRT_MODEL_TIMEOUT_MS, else 60000.",
  },
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
  if (name === undefined || name === "--help" || name === "-h") {
    io.out(globalHelp(await allCommands(), GLOBAL_FLAGS));
    return 0;
  }
  if (name === "help") return printHelp(rest, io);
  if (name === "--version" || name === "-v") {
    io.out(packageVersion());
    return 0;
  }
  const command = await findCommand(name, io);
  if (command === undefined) return 2;
  if (asksForHelp(rest)) {
    io.out(commandHelp(command, GLOBAL_FLAGS));
    return 0;
  }
  try {
    const parsed = parseCommandLine(name, rest, { ...GLOBAL_FLAGS, ...command.flags });
    const { db, json, help: _help, "model-timeout-ms": modelTimeout, ...flags } = parsed.values;
    const ctx: CommandContext = { db: typeof db === "string" ? db : defaultDatabase(), json: json === true, args: parsed.positionals, flags, out: io.out, err: io.err };
    const timeoutMs = parseModelTimeout(modelTimeout as string | undefined, "--model-timeout-ms");
    return await withEnv(MODEL_TIMEOUT_ENV, timeoutMs === undefined ? undefined : String(timeoutMs), () => command.run(ctx));
  } catch (error) {
    return reportError(name, error, io);
  }
}

/** Runs `fn` with `name` set to `value` (graphs read the model's settings from the environment when they load). */
async function withEnv<T>(name: string, value: string | undefined, fn: () => Promise<T>): Promise<T> {
  if (value === undefined) return fn();
  const previous = process.env[name];
  process.env[name] = value;
  try {
    return await fn();
  } finally {
    if (previous === undefined) delete process.env[name];
    else process.env[name] = previous;
  }
}

/** Every command, for the help that lists them all. */
async function allCommands(): Promise<readonly Command[]> {
  return (await import("./commands/index.js")).commands;
}

/** `agentrt help [<command>]`. */
async function printHelp(args: string[], io: CliIo): Promise<number> {
  const [name, ...extra] = args;
  if (name === undefined) {
    io.out(globalHelp(await allCommands(), GLOBAL_FLAGS));
    return 0;
  }
  if (extra.length > 0) {
    io.err(`agentrt help: one command at a time (usage: agentrt help <command>)`);
    return 2;
  }
  const command = await findCommand(name, io);
  if (command === undefined) return 2;
  io.out(commandHelp(command, GLOBAL_FLAGS));
  return 0;
}

/** The command called `name`, loaded now (only its own imports); undefined, said on stderr, for an unknown name. */
async function findCommand(name: string, io: CliIo): Promise<Command | undefined> {
  const load = Object.hasOwn(COMMAND_LOADERS, name) ? COMMAND_LOADERS[name] : undefined;
  if (load === undefined) io.err(`agentrt: unknown command "${name}" (see agentrt help)`);
  return load?.();
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

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0] ?? message;
}
