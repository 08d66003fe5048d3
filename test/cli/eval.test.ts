// agentrt eval through main(): the table, --json, --out, --min-pass exit codes, the failures file, bad dataset lines.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

async function cli(args: string[]) {
  const { code, outLines: out, errLines: err } = await runCli(args);
  return { code, out, err };
}

const PASSING = { id: "on-time", input: { message: "Check order 10087" }, expect: { answer_contains: ["on time"], tools_not_called: ["send_message"] } };
const FAILING = { id: "wrong", input: { message: "Check order 10086" }, expect: { tools_not_called: ["send_message"] } };

function dataset(...cases: object[]): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), "agentrt-eval-cli-"));
  const file = join(dir, "cases.jsonl");
  writeFileSync(file, `${cases.map((c) => JSON.stringify(c)).join("\n")}\n`);
  return { dir, file };
}

beforeAll(() => {
  delete process.env.OPENAI_API_KEY;
});

describe("agentrt eval", () => {
  it("prints progress on stderr and a table; below --min-pass exits 1 and appends the failing case next to --out", async () => {
    const { dir, file } = dataset(PASSING, FAILING);
    const out = join(dir, "report.json");
    const { code, out: lines, err } = await cli(["eval", file, "--graph", "order_delay", "--out", out]);
    expect(code).toBe(1);
    expect(err[0]).toMatch(/^\[1\/2\] pass on-time SUCCEEDED \d+ms$/);
    expect(err[1]).toMatch(/^\[2\/2\] FAIL wrong SUCCEEDED \d+ms \(tool_calls\)$/);
    expect(err[2]).toBe(`1 failing case(s) appended to ${join(dir, "report.failures.jsonl")}`);
    const table = lines.join("\n");
    expect(table).toMatch(/^wrong +FAIL +SUCCEEDED +7 +\$\d\.\d{6} +\d+ms +tool_calls$/m);
    expect(table).toContain("wrong tool_calls: send_message called 1x but must not be");
    expect(table).toMatch(/passed 1\/2 \(50\.0%, min 100\.0%\)/);
    const report = JSON.parse(readFileSync(out, "utf8")) as { summary: { passed: number; ok: boolean } };
    expect(report.summary).toMatchObject({ passed: 1, ok: false });
    expect(readFileSync(join(dir, "report.failures.jsonl"), "utf8")).toBe(`${JSON.stringify(FAILING)}\n`);
  });

  it("--json prints exactly one JSON object; --min-pass 0.5 exits 0", async () => {
    const { dir, file } = dataset(PASSING, FAILING);
    const failures = join(dir, "f.jsonl");
    const { code, out } = await cli(["eval", file, "--graph", "order_delay", "--json", "--min-pass", "0.5", "--failures", failures]);
    expect(code).toBe(0);
    expect(out).toHaveLength(1);
    const report = JSON.parse(out[0]!) as { graph: string; cases: { id: string; pass: boolean }[]; summary: { pass_rate: number; min_pass: number } };
    expect(report.graph).toBe("order_delay");
    expect(report.cases.map((c) => [c.id, c.pass])).toEqual([["on-time", true], ["wrong", false]]);
    expect(report.summary).toMatchObject({ pass_rate: 0.5, min_pass: 0.5 });
    expect(readFileSync(failures, "utf8").trim().split("\n")).toHaveLength(1);
  });

  it("a bad dataset line is exit 2 with a one-line reason naming the line, before any case runs", async () => {
    const { file } = dataset(PASSING, { id: "x", input: { message: "m" }, expect: { max_steps: -1 } });
    const { code, out, err } = await cli(["eval", file, "--graph", "order_delay"]);
    expect(code).toBe(2);
    expect(out).toEqual([]);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/^agentrt eval: cases\.jsonl:2: not a valid case at expect\.max_steps: .* \[BAD_INPUT\]$/);
  });

  it("usage errors are exit 2", async () => {
    const { file } = dataset(PASSING);
    expect((await cli(["eval", file])).code).toBe(2);
    expect((await cli(["eval", file, "--graph", "order_delay", "--min-pass", "2"])).err[0]).toMatch(/--min-pass must be a number from 0 to 1/);
    expect((await cli(["eval", join(tmpdir(), "no-such-dataset.jsonl"), "--graph", "order_delay"])).err[0]).toMatch(/cannot read dataset .* \(ENOENT\)/);
  });
});
