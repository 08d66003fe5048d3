/**
 * A run's outcome in one line, as `agentrt worker` prints each run it executed: id, graph, status, then the
 * answer, what the run waits for, or its error.
 * @module
 */
import type { RunView } from "../runtime/index.js";
import { cliPrefix } from "./invocation.js";
import { answerText } from "./print-run.js";

/** The statuses a run rests in after an execution (RUNNING and RETRYING are on the way). */
export const RESTING_STATUSES: ReadonlySet<string> = new Set(["SUCCEEDED", "FAILED", "CANCELED", "EXPIRED", "WAITING_INPUT", "WAITING_APPROVAL"]);

/** Longest answer shown; the whole one is in `agentrt status <run_id>`. */
const MAX_TEXT = 160;

/** `run_… ops_rollback WAITING_APPROVAL waits for approval: rollback_deployment {…} (to decide: …)`; `dbFlag` ends the commands shown. */
export function runOutcomeLine(view: RunView, dbFlag = "", cli: string = cliPrefix()): string {
  const [text, hint] = what(view, dbFlag, cli);
  return `${view.run_id}  ${view.graph.padEnd(14)}  ${view.status.padEnd(16)}  ${oneLine(text)}${hint === "" ? "" : ` ${hint}`}`.trimEnd();
}

/** What to say about the run, and a hint kept whole however long the text is. */
function what(view: RunView, db: string, cli: string): [string, string] {
  if (view.status === "SUCCEEDED") return [view.result === null ? "" : answerText(view.result), ""];
  const approvals = view.pending.map((p) => `${p.tool} ${JSON.stringify(p.args)}`);
  if (approvals.length > 0) return [`waits for approval: ${approvals.join("; ")}`, `(to decide: ${cli} status ${view.run_id}${db})`];
  const questions = view.input_requests.map((r) => r.question);
  if (questions.length > 0) return [`waits for input: ${questions.join("; ")}`, `(to answer: ${cli} input ${view.run_id} --text …${db})`];
  return [view.error === null ? "" : `error ${view.error.code}: ${view.error.message}`, ""];
}

/** Whitespace folded to single spaces and cut to {@link MAX_TEXT} characters, so each run is one line. */
function oneLine(text: string): string {
  const folded = text.replace(/\s+/g, " ").trim();
  return folded.length <= MAX_TEXT ? folded : `${folded.slice(0, MAX_TEXT - 1)}…`;
}
