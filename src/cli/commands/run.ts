import { UserInputError } from "../../errors.js";
import { BUDGET_FLAGS, BUDGET_USAGE, parseBudgetFlags } from "../budget-flags.js";
import type { Command } from "../command.js";
import { parseJsonFlag } from "../json-flag.js";
import { printRun } from "../print-run.js";
import { withRuntime } from "../runtime-context.js";

/** `agentrt run <graph>`: starts a run and executes it here until it finishes or waits. */
export const runCommand: Command = {
  name: "run",
  summary: "Start a run of a graph and execute it until it finishes or waits",
  usage: `agentrt run <graph> (--message TEXT | --input JSON) [--thread ID] [--user NAME] [--priority N] ${BUDGET_USAGE} [--wait-ttl-ms N] [--configurable JSON] [--recursion-limit N] [--idempotency-key KEY] [--queue]`,
  details: [
    "<graph> is an id from langgraph.json (agentrt graph lists them). The run is stored in --db and executed in this",
    "process; a run that waits for approval or an answer stays in the file, and any later process decides it.",
  ],
  flags: {
    message: { type: "string", short: "m", value: "TEXT", description: "The user's message; the run starts with it as its only message." },
    input: { type: "string", value: "JSON", description: "The run's whole input as a JSON object of the graph's input keys, instead of --message." },
    thread: { type: "string", value: "ID", description: "Continue this thread (its earlier messages are kept); a new thread when not given." },
    user: { type: "string", value: "NAME", description: "Who asks; approval policies and the default approver go by it. Default: anonymous." },
    priority: { type: "string", value: "N", description: "Workers claim queued runs of higher priority first. Default: 0." },
    queue: { type: "boolean", default: false, description: "Only store the run as QUEUED; a worker (agentrt worker) executes it." },
    ...BUDGET_FLAGS,
    "wait-ttl-ms": { type: "string", value: "N", description: "A wait for approval or input expires after N ms (the run ends EXPIRED). Default: AGENTRT_WAIT_TTL_MS, else no limit." },
    configurable: { type: "string", value: "JSON", description: "A JSON object handed to the graph as config.configurable (e.g. a model name)." },
    "recursion-limit": { type: "string", value: "N", description: "LangGraph's limit of super-steps; past it the run ends FAILED RECURSION_LIMIT." },
    "idempotency-key": { type: "string", value: "KEY", description: "Run again with the same key (same user and flags, within 24 h): shows the first run instead of starting a second." },
  },
  examples: [
    'agentrt run ops_rollback --message "Why did the payments deploy fail?" --user alice',
    'agentrt run city_weather -m "Weather for Beijing" --queue',
    'agentrt run city_weather --input \'{"messages":[{"role":"user","content":"Weather for Beijing"}]}\' --max-steps 10',
  ],
  async run(ctx) {
    const [graph, ...extra] = ctx.args;
    if (graph === undefined || extra.length > 0) throw new UserInputError("BAD_INPUT", "usage: agentrt run <graph> --message TEXT");
    const message = ctx.flags.message as string | undefined;
    const rawInput = ctx.flags.input as string | undefined;
    if ((message === undefined) === (rawInput === undefined)) {
      throw new UserInputError("BAD_INPUT", "give exactly one of --message TEXT or --input JSON");
    }
    const input = rawInput === undefined ? undefined : parseJsonFlag(rawInput, "--input");
    const rawConfigurable = ctx.flags.configurable as string | undefined;
    const configurable = rawConfigurable === undefined ? undefined : parseJsonFlag(rawConfigurable, "--configurable");
    if (configurable !== undefined && (typeof configurable !== "object" || configurable === null || Array.isArray(configurable))) {
      throw new UserInputError("BAD_INPUT", "--configurable must be a JSON object, e.g. '{\"model\":\"gpt-4o\"}'");
    }
    const recursionLimit = parseInteger(ctx.flags["recursion-limit"] as string | undefined, "--recursion-limit");
    const priority = parseInteger(ctx.flags.priority as string | undefined, "--priority");
    const budget = parseBudgetFlags(ctx.flags);
    const waitTtlMs = parseInteger(ctx.flags["wait-ttl-ms"] as string | undefined, "--wait-ttl-ms");
    // Checked before the file is opened: a refused value creates nothing.
    if (waitTtlMs !== undefined && waitTtlMs < 1) throw new UserInputError("BAD_INPUT", `--wait-ttl-ms must be at least 1 (got ${waitTtlMs})`);
    // A key the graph does not take would be dropped by LangGraph without a word: refused before anything is stored.
    if (input !== undefined) {
      // Loaded here, not with the CLI: the commands that do not run a graph start without LangGraph.
      const { assertKnownInputKeys, GraphRegistry } = await import("../../runtime/index.js");
      assertKnownInputKeys(await GraphRegistry.fromConfig(process.env.AGENTRT_CONFIG).load(graph), graph, input);
    }
    return withRuntime(ctx, async (runtime) => {
      const view = await runtime.submit({
        graph, message, input, threadId: ctx.flags.thread as string | undefined, user: ctx.flags.user as string | undefined,
        priority, budget, waitTtlMs, queue: ctx.flags.queue === true, idempotencyKey: ctx.flags["idempotency-key"] as string | undefined,
        config: configurable === undefined && recursionLimit === undefined ? undefined : {
          ...(configurable === undefined ? {} : { configurable: configurable as Record<string, unknown> }),
          ...(recursionLimit === undefined ? {} : { recursionLimit }),
        },
      });
      // Not started here although asked to: say why (printRun says how to start a worker).
      const notStarted = view.status === "QUEUED" && ctx.flags.queue !== true;
      return printRun(ctx, view, notStarted ? [`not started here: an earlier run of thread ${view.thread_id} is unfinished or a concurrency cap is reached`] : []);
    });
  },
};

/** Parses an optional integer flag; bad values are exit 2. */
export function parseInteger(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) throw new UserInputError("BAD_INPUT", `${flag} must be an integer (got "${value}")`);
  return Number(value);
}
