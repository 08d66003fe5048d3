import { UserInputError } from "../../errors.js";
import { BUDGET_FLAGS, BUDGET_USAGE, parseBudgetFlags } from "../budget-flags.js";
import type { Command } from "../command.js";
import { printRun, withRuntime } from "../runtime-context.js";

/** `agentrt run <graph>`: starts a run and executes it here until it finishes or waits. */
export const runCommand: Command = {
  name: "run",
  summary: "Start a run of a graph and execute it until it finishes or waits",
  usage: `agentrt run <graph> (--message TEXT | --input JSON) [--thread ID] [--user NAME] [--priority N] ${BUDGET_USAGE} [--wait-ttl-ms N] [--configurable JSON] [--recursion-limit N] [--queue]`,
  flags: {
    message: { type: "string", short: "m" },
    input: { type: "string" },
    thread: { type: "string" },
    user: { type: "string" },
    priority: { type: "string" },
    queue: { type: "boolean", default: false },
    ...BUDGET_FLAGS,
    "wait-ttl-ms": { type: "string" },
    configurable: { type: "string" },
    "recursion-limit": { type: "string" },
  },
  async run(ctx) {
    const [graph, ...extra] = ctx.args;
    if (graph === undefined || extra.length > 0) throw new UserInputError("BAD_INPUT", "usage: agentrt run <graph> --message TEXT");
    const message = ctx.flags.message as string | undefined;
    const rawInput = ctx.flags.input as string | undefined;
    if ((message === undefined) === (rawInput === undefined)) {
      throw new UserInputError("BAD_INPUT", "give exactly one of --message TEXT or --input JSON");
    }
    const input = rawInput === undefined ? undefined : parseJson(rawInput, "--input");
    const rawConfigurable = ctx.flags.configurable as string | undefined;
    const configurable = rawConfigurable === undefined ? undefined : parseJson(rawConfigurable, "--configurable");
    if (configurable !== undefined && (typeof configurable !== "object" || configurable === null || Array.isArray(configurable))) {
      throw new UserInputError("BAD_INPUT", "--configurable must be a JSON object, e.g. '{\"model\":\"gpt-4o\"}'");
    }
    const recursionLimit = parseInteger(ctx.flags["recursion-limit"] as string | undefined, "--recursion-limit");
    const priority = parseInteger(ctx.flags.priority as string | undefined, "--priority");
    const budget = parseBudgetFlags(ctx.flags);
    const waitTtlMs = parseInteger(ctx.flags["wait-ttl-ms"] as string | undefined, "--wait-ttl-ms");
    return withRuntime(ctx, async (runtime) => {
      const view = await runtime.submit({
        graph, message, input, threadId: ctx.flags.thread as string | undefined, user: ctx.flags.user as string | undefined,
        priority, budget, waitTtlMs, queue: ctx.flags.queue === true,
        config: configurable === undefined && recursionLimit === undefined ? undefined : {
          ...(configurable === undefined ? {} : { configurable: configurable as Record<string, unknown> }),
          ...(recursionLimit === undefined ? {} : { recursionLimit }),
        },
      });
      const code = printRun(ctx, view);
      if (!ctx.json && view.status === "QUEUED" && ctx.flags.queue !== true) {
        // Not started here although asked to: say why, or the user waits for nothing.
        ctx.out(`  not started here: an earlier run of thread ${view.thread_id} is unfinished or a concurrency cap is reached;`);
        ctx.out(`  a worker runs it once it may: agentrt worker --once${ctx.db === "./agentrt.db" ? "" : ` --db ${ctx.db}`}`);
      }
      return code;
    });
  },
};

function parseJson(text: string, flag: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UserInputError("BAD_INPUT", `${flag} is not valid JSON (${(error as Error).message})`);
  }
}

/** Parses an optional integer flag; bad values are exit 2. */
export function parseInteger(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) throw new UserInputError("BAD_INPUT", `${flag} must be an integer (got "${value}")`);
  return Number(value);
}
