/**
 * Evaluation cases as they come in: one JSON object per line of a dataset
 * file, validated with zod. A bad line is a user error naming its line.
 * @module
 */
import { z } from "zod";
import { UserInputError } from "../errors.js";
import { RUN_STATUSES } from "../runs/index.js";
import { simFaults, simLatencyMs } from "../testing/sim-env.js";

const expectedCall = z.object({
  tool: z.string().min(1),
  /** Every key must match: a literal (deep-equal), `{ $contains }` or `{ $regex }`. */
  args: z.record(z.string(), z.unknown()).optional(),
}).strict();

const expectation = z.object({
  status: z.enum(RUN_STATUSES).optional(),
  answer_contains: z.array(z.string()).optional(),
  answer_matches: z.string().optional(),
  tools_called: z.array(expectedCall).optional(),
  tools_not_called: z.array(z.string()).optional(),
  /** Tools that may only execute after an approval (safety). */
  requires_approval: z.array(z.string()).optional(),
  max_steps: z.number().int().nonnegative().optional(),
  max_model_calls: z.number().int().nonnegative().optional(),
  max_cost_usd: z.number().nonnegative().optional(),
  /** Calls the simulated systems really performed, per tool (0 = never). */
  world_calls: z.record(z.string(), z.number().int().nonnegative()).optional(),
  /** With faults injected: every tool that failed later succeeded (true) or the run ended gracefully without (false). @default true */
  recovers: z.boolean().optional(),
}).strict();

const approval = z.object({
  tool: z.string().min(1),
  decision: z.enum(["approve", "reject"]),
  by: z.string().optional(),
  reason: z.string().optional(),
}).strict();

const caseEnv = z.object({
  AGENTRT_SIM_FAULTS: z.string().optional(),
  AGENTRT_SIM_LATENCY_MS: z.string().optional(),
}).strict();

const caseInput = z.union([
  z.object({ message: z.string() }).strict(),
  z.object({ input: z.unknown() }).strict(),
]);

const evalCaseSchema = z.object({
  id: z.string().min(1),
  description: z.string().optional(),
  input: caseInput,
  user: z.string().optional(),
  env: caseEnv.optional(),
  approvals: z.array(approval).optional(),
  expect: expectation,
}).strict();

/** One evaluation case: an input, how to answer approvals, and what must hold afterwards. */
export type EvalCase = z.infer<typeof evalCaseSchema>;

/** What a case expects; see the README's `agentrt eval` section. */
export type CaseExpectation = z.infer<typeof expectation>;

/** A tool call a case expects, with optional argument predicates. */
export type ExpectedToolCall = z.infer<typeof expectedCall>;

/** A scripted decision for the next pending approval. */
export type CaseApproval = z.infer<typeof approval>;

/** A case with the line it came from, kept verbatim for the failures file. */
export interface DatasetCase {
  case: EvalCase;
  line: number;
  text: string;
}

/**
 * Parses a JSONL dataset; blank lines are skipped. Throws BAD_INPUT naming
 * the first bad line (invalid JSON, schema violation, duplicate id, bad env).
 * @example
 * const cases = parseDataset(readFileSync("graphs/datasets/order_delay.jsonl", "utf8"), "order_delay.jsonl");
 */
export function parseDataset(text: string, source = "dataset"): DatasetCase[] {
  const cases: DatasetCase[] = [];
  const seen = new Set<string>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed === "") return;
    const parsed = parseLine(trimmed, `${source}:${line}`);
    if (seen.has(parsed.id)) throw new UserInputError("BAD_INPUT", `${source}:${line}: duplicate case id "${parsed.id}"`);
    seen.add(parsed.id);
    cases.push({ case: parsed, line, text: trimmed });
  });
  if (cases.length === 0) throw new UserInputError("BAD_INPUT", `${source}: no cases`);
  return cases;
}

function parseLine(text: string, where: string): EvalCase {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UserInputError("BAD_INPUT", `${where}: not valid JSON (${(error as Error).message})`);
  }
  const result = evalCaseSchema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = issue === undefined || issue.path.length === 0 ? "" : ` at ${issue.path.join(".")}`;
    throw new UserInputError("BAD_INPUT", `${where}: not a valid case${path}: ${issue?.message ?? "invalid"}`);
  }
  const value = result.data;
  try {
    simFaults(value.env ?? {});
    simLatencyMs(value.env ?? {});
    if (value.expect.answer_matches !== undefined) new RegExp(value.expect.answer_matches);
    for (const call of value.expect.tools_called ?? []) {
      for (const predicate of Object.values(call.args ?? {})) {
        if (isRegexPredicate(predicate)) new RegExp(predicate.$regex);
      }
    }
  } catch (error) {
    throw new UserInputError("BAD_INPUT", `${where}: ${(error as Error).message}`);
  }
  return value;
}

/** True for an argument predicate of the form `{ "$regex": "..." }`. */
export function isRegexPredicate(value: unknown): value is { $regex: string } {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 1 && typeof (value as { $regex?: unknown }).$regex === "string";
}

/** True for an argument predicate of the form `{ "$contains": ... }`. */
export function isContainsPredicate(value: unknown): value is { $contains: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 1 && "$contains" in value;
}
