import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { UserInputError } from "../../errors.js";
import type { Command } from "../command.js";

/** `agentrt eval <dataset.jsonl> --graph G`: runs every case, prints a table (or the JSON report), exit 1 below --min-pass. */
export const evalCommand: Command = {
  name: "eval",
  summary: "Run a JSONL dataset of cases against a graph and score them (exit 1 below --min-pass)",
  usage: "agentrt eval <dataset.jsonl> --graph G [--out report.json] [--min-pass 1] [--failures FILE] [--keep DIR]",
  details: ["Each case runs on its own temporary SQLite file, with its env applied to the simulated world only."],
  flags: {
    graph: { type: "string", short: "g", value: "G", description: "The graph (an id from langgraph.json) every case runs against." },
    out: { type: "string", short: "o", value: "FILE", description: "Also write the whole report as JSON to FILE." },
    "min-pass": { type: "string", value: "RATE", description: "The share of cases that must pass, 0 to 1; below it the exit code is 1. Default: 1." },
    failures: { type: "string", value: "FILE", description: "Append the failing cases to FILE as JSONL, to re-run them later. Default: beside --out, else none." },
    keep: { type: "string", value: "DIR", description: "Keep each case's SQLite file in DIR, to look at with agentrt trace or runs." },
  },
  examples: ["agentrt eval graphs/datasets/ops_rollback.jsonl --graph ops_rollback", "agentrt eval cases.jsonl -g city_weather --min-pass 0.9 --out report.json"],
  async run(ctx) {
    const [file, ...extra] = ctx.args;
    const graph = ctx.flags.graph as string | undefined;
    if (file === undefined || extra.length > 0 || graph === undefined) {
      throw new UserInputError("BAD_INPUT", "usage: agentrt eval <dataset.jsonl> --graph G");
    }
    const minPass = parseRate(ctx.flags["min-pass"] as string | undefined);
    // Loaded here, not with the CLI: the eval runner brings LangGraph, which the read commands do without.
    const { appendFailures, defaultFailuresPath, parseDataset, progressLine, renderReport, runDataset } = await import("../../eval/index.js");
    const cases = parseDataset(readDataset(file), basename(file));
    const report = await runDataset(cases, {
      graph, dataset: file, minPass, config: process.env.AGENTRT_CONFIG, keepDir: ctx.flags.keep as string | undefined,
      onCase: (done, index, total) => ctx.err(progressLine(done, index, total)),
    });
    const out = ctx.flags.out as string | undefined;
    if (out !== undefined) writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
    const failuresPath = (ctx.flags.failures as string | undefined) ?? defaultFailuresPath(out);
    const appended = appendFailures(failuresPath, cases, report);
    if (ctx.json) ctx.out(JSON.stringify(report));
    else ctx.out(renderReport(report));
    if (appended > 0) ctx.err(`${appended} failing case(s) appended to ${failuresPath}`);
    return report.summary.ok ? 0 : 1;
  },
};

function readDataset(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new UserInputError("BAD_INPUT", `cannot read dataset ${file} (${(error as NodeJS.ErrnoException).code ?? "error"})`, { cause: error });
  }
}

function parseRate(value: string | undefined): number {
  if (value === undefined) return 1;
  const rate = Number(value);
  if (value.trim() === "" || !Number.isFinite(rate) || rate < 0 || rate > 1) {
    throw new UserInputError("BAD_INPUT", `--min-pass must be a number from 0 to 1 (got "${value}")`);
  }
  return rate;
}
