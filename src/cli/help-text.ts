/**
 * The help screens: `agentrt help` (every command in a line) and `agentrt help <command>`, which
 * `agentrt <command> --help` prints too: usage, what the command does, each option with a sentence, examples.
 * @module
 */
import type { Command, CommandOption, FlagSpec } from "./command.js";

/** Width the descriptions are wrapped to. */
const WIDTH = 100;
const USAGE = "Usage: ";

/** The variables every command reads, with what each sets. */
const ENVIRONMENT: ReadonlyArray<readonly [string, string]> = [
  ["AGENTRT_CONFIG", "The langgraph.json whose graphs the commands run and resume (default: ./langgraph.json). Set it to approve or resume from another directory a run started by a script, e.g. AGENTRT_CONFIG=examples/langgraph.json."],
  ["AGENTRT_DATABASE_URL", "The default of --db."],
  ["OPENAI_API_KEY", "Run the graphs on a real OpenAI-compatible model (with OPENAI_BASE_URL, AGENTRT_MODEL); unset, a scripted model plays it offline."],
  ["AGENTRT_MODEL_TIMEOUT_MS", "How long one HTTP attempt waits for the real model before the client retries (default 60000); --model-timeout-ms sets it too."],
];

/** The help of the whole CLI. */
export function globalHelp(commands: readonly Command[], globalFlags: FlagSpec): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    "agentrt — an agent runtime on LangGraph.js",
    "",
    "Usage: agentrt <command> [options]",
    "",
    "Commands:",
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Options of every command:",
    ...optionLines(globalFlags),
    "",
    "Environment:",
    ...environmentLines(),
    "",
    "Run agentrt help <command> (or agentrt <command> --help) for a command's options and examples.",
    "Exit codes: 0 success or waiting, 1 run failed (also expired or canceled), 2 bad usage or input.",
  ].join("\n");
}

/** The help of one command. */
export function commandHelp(command: Command, globalFlags: FlagSpec): string {
  const own = optionLines(command.flags);
  // Wrapped between options, never inside one: `[--priority N]` stays whole.
  const [usage = "", ...more] = wrap(command.usage.match(/\[[^\]]*\]\S*|\([^)]*\)|\S+/g) ?? [], WIDTH - USAGE.length);
  return [
    `${USAGE}${usage}`,
    ...more.map((line) => `${" ".repeat(USAGE.length)}${line}`),
    "",
    ...wrap(words([`${command.summary}.`, ...(command.details ?? [])].join(" ")), WIDTH),
    "",
    ...(own.length === 0 ? [] : ["Options:", ...own, ""]),
    "Options of every command:",
    ...optionLines(globalFlags),
    "",
    "Examples:",
    ...command.examples.map((example) => `  ${example}`),
  ].join("\n");
}

function environmentLines(): string[] {
  const width = Math.max(...ENVIRONMENT.map(([name]) => name.length));
  return ENVIRONMENT.flatMap(([name, text]) => {
    const [first = "", ...rest] = wrap(words(text), WIDTH - width - 4);
    return [`  ${name.padEnd(width)}  ${first}`, ...rest.map((line) => `${" ".repeat(width + 4)}${line}`)];
  });
}

function optionLines(flags: FlagSpec): string[] {
  const entries = Object.entries(flags).map(([name, spec]) => [signature(name, spec), describe(spec)] as const);
  const width = Math.max(0, ...entries.map(([sig]) => sig.length));
  return entries.flatMap(([sig, text]) => {
    const [first = "", ...rest] = wrap(words(text), WIDTH - width - 4);
    return [`  ${sig.padEnd(width)}  ${first}`, ...rest.map((line) => `${" ".repeat(width + 4)}${line}`)];
  });
}

function signature(name: string, spec: CommandOption): string {
  const short = spec.short === undefined ? "" : `-${spec.short}, `;
  const value = spec.type === "string" ? ` ${spec.value ?? "VALUE"}` : "";
  return `${short}--${name}${value}`;
}

function describe(spec: CommandOption): string {
  const parts = [spec.description];
  if (spec.choices !== undefined) parts.push(`One of ${spec.choices.join(", ")} (any case).`);
  if (spec.multiple === true) parts.push("May be given more than once.");
  if (typeof spec.default === "string") parts.push(`Default: ${spec.default}.`);
  return parts.join(" ");
}

const words = (text: string): string[] => text.split(/\s+/).filter((word) => word !== "");

/** Joins `parts` into lines of at most `width` characters (a longer part keeps a line of its own). */
function wrap(parts: readonly string[], width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of parts) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  if (line !== "") lines.push(line);
  return lines;
}
