/**
 * `command.goto` / `command.update` of a run request, read as the runtime's {@link GraphCommand}: LangGraph's
 * server takes both (agent-chat-ui's "Mark as Resolved" sends `goto: "__end__"`). What the runtime cannot honour is
 * refused with one line, before anything changes.
 * @module
 */
import type { GraphCommand } from "../runtime/command-resume.js";
import { HttpError } from "./http-error.js";

const bad = (reason: string) => new HttpError(422, "BAD_INPUT", reason);
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The goto/update of `command`, or undefined when it has neither (a resume, or no command). BAD_INPUT when malformed. */
export function graphCommandOf(command: { resume?: unknown; goto?: unknown; update?: unknown } | null | undefined): GraphCommand | undefined {
  const goto = command?.goto ?? undefined;
  const update = command?.update ?? undefined;
  if (goto === undefined && update === undefined) return undefined;
  if (command?.resume !== undefined) {
    throw bad("command.resume goes without command.goto / command.update: answer the interrupt, then send the command");
  }
  return { ...(goto === undefined ? {} : { goto: gotoOf(goto) }), ...(update === undefined ? {} : { update: updateOf(update) }) };
}

function gotoOf(goto: unknown): string[] {
  const list = Array.isArray(goto) ? goto : [goto];
  if (list.length === 0) throw bad("command.goto names no node");
  return list.map((node) => {
    if (typeof node === "string" && node !== "") return node;
    if (isRecord(node)) throw bad("command.goto with Send objects is not supported: name the nodes");
    throw bad(`command.goto must be a node name or a list of them, got ${JSON.stringify(node)}`);
  });
}

function updateOf(update: unknown): Record<string, unknown> | [string, unknown][] {
  if (isRecord(update)) return update;
  if (Array.isArray(update) && update.every((pair) => Array.isArray(pair) && pair.length === 2 && typeof pair[0] === "string")) {
    return update as [string, unknown][];
  }
  throw bad("command.update must be an object of state keys, or a list of [key, value] pairs");
}
