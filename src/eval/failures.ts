/**
 * Failing cases appended verbatim to a JSONL file, so they can be replayed
 * as regression cases with `agentrt eval <that file>`.
 * @module
 */
import { existsSync, mkdirSync, readFileSync, appendFileSync } from "node:fs";
import { dirname } from "node:path";
import type { DatasetCase } from "./case-schema.js";
import type { EvalReport } from "./report.js";

/**
 * Appends the dataset lines of the report's failing cases to `path`; a line
 * already in the file is not added again. Returns how many lines were added.
 */
export function appendFailures(path: string, cases: readonly DatasetCase[], report: EvalReport): number {
  const failed = new Set(report.cases.filter((c) => !c.pass).map((c) => c.id));
  const present = new Set(existsSync(path) ? readFileSync(path, "utf8").split(/\r?\n/).map((l) => l.trim()) : []);
  const lines = cases.filter((c) => failed.has(c.case.id) && !present.has(c.text)).map((c) => c.text);
  if (lines.length === 0) return 0;
  mkdirSync(dirname(path), { recursive: true });
  const existing = existsSync(path) ? readFileSync(path, "utf8") : "";
  const lead = existing === "" || existing.endsWith("\n") ? "" : "\n";
  appendFileSync(path, `${lead}${lines.join("\n")}\n`);
  return lines.length;
}

/** The default failures file: next to `--out` (`report.json` → `report.failures.jsonl`), else `./eval-failures.jsonl`. */
export function defaultFailuresPath(out: string | undefined): string {
  if (out === undefined) return "./eval-failures.jsonl";
  return `${out.replace(/\.json$/i, "")}.failures.jsonl`;
}
