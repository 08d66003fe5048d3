/**
 * Reading a command's arguments. node's `parseArgs` splits them into tokens (leniently, so it never throws);
 * every check is made here, so each mistake gets agentrt's own one-line reason (exit 2) in the same words
 * whatever form it took: `--max-steps -1` is read as `--max-steps=-1` and refused by the same check.
 * @module
 */
import { parseArgs } from "node:util";
import { UserInputError } from "../errors.js";
import type { CommandContext, FlagSpec } from "./command.js";

/** What a command line holds: option values by long name (defaults applied) and the positional arguments. */
export interface ParsedCommandLine {
  values: CommandContext["flags"];
  positionals: string[];
}

// A negative number is a value, not an option: `--priority -1`, `--max-cost-usd -.5`.
const NEGATIVE_NUMBER = /^-\.?\d/;

const bad = (reason: string): UserInputError => new UserInputError("BAD_INPUT", reason);

/** True when `--help` or `-h` is among the options (before any `--`): help is shown whatever else is wrong. */
export function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === "--help" || arg === "-h");
}

/** Reads `args` against `options`; BAD_INPUT with a one-line reason for an unknown option, a missing value, … */
export function parseCommandLine(command: string, args: string[], options: FlagSpec): ParsedCommandLine {
  const config = Object.fromEntries(Object.entries(options).map(([name, spec]) => [
    name, { type: spec.type, ...(spec.short === undefined ? {} : { short: spec.short }) },
  ]));
  const { tokens } = parseArgs({ args, options: config, allowPositionals: true, strict: false, tokens: true });
  const values: CommandContext["flags"] = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === "positional") positionals.push(token.value);
    if (token.kind !== "option") continue;
    const spec = options[token.name];
    if (spec === undefined) throw bad(`unknown option ${token.rawName} (see agentrt ${command} --help)`);
    const flag = `--${token.name}`;
    if (spec.type === "boolean") {
      if (token.value !== undefined) throw bad(`${flag} takes no value (got "${token.value}")`);
      // A repeated switch (`--json --json`) cannot mean two things.
      values[token.name] = true;
      continue;
    }
    const value = optionValue(flag, token.value, token.inlineValue === true, spec.choices);
    if (spec.multiple === true) {
      values[token.name] = [...((values[token.name] as string[] | undefined) ?? []), value];
    } else if (values[token.name] !== undefined) {
      // Keeping the last of `approve --action A --action B` would decide B without a word.
      throw bad(`${flag} given more than once; give it once`);
    } else {
      values[token.name] = value;
    }
  }
  for (const [name, spec] of Object.entries(options)) {
    if (values[name] === undefined && spec.default !== undefined) values[name] = spec.default;
  }
  return { values, positionals };
}

function optionValue(flag: string, value: string | undefined, inline: boolean, choices: readonly string[] | undefined): string {
  if (value === undefined) throw bad(`${flag} needs a value`);
  if (!inline && value.startsWith("-") && !NEGATIVE_NUMBER.test(value)) {
    throw bad(`${flag} needs a value (got the option ${value}; to pass a value that starts with a dash, write ${flag}=${value})`);
  }
  if (choices === undefined) return value;
  const chosen = choices.find((choice) => choice.toLowerCase() === value.toLowerCase());
  if (chosen === undefined) throw bad(`${flag} must be one of ${choices.join(", ")} (got "${value}")`);
  return chosen;
}
