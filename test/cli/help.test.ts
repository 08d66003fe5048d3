// Help that teaches: every option of every command has a sentence, every command an example, and
// `agentrt help <cmd>` prints what `agentrt <cmd> --help` prints.
import { describe, expect, it } from "vitest";
import { commands } from "../../src/cli/commands/index.js";
import { runCli } from "../helpers/cli.js";

const NAMES = commands.map((c) => c.name);

describe("agentrt help", () => {
  it("lists every command and says how to get a command's help", async () => {
    const { code, out } = await runCli(["help"]);
    expect(code).toBe(0);
    for (const name of NAMES) expect(out).toMatch(new RegExp(`^  ${name} `, "m"));
    expect(out).toContain("agentrt help <command>");
  });

  it("names the variables the commands read, AGENTRT_CONFIG first", async () => {
    const { out } = await runCli(["--help"]);
    const environment = out.slice(out.indexOf("Environment:"));
    for (const name of ["AGENTRT_CONFIG", "AGENTRT_DATABASE_URL", "OPENAI_API_KEY", "AGENTRT_MODEL_TIMEOUT_MS"]) expect(environment).toMatch(new RegExp(`^  ${name} +\\S`, "m"));
  });

  it.each(NAMES)("help %s is the same as the command with --help", async (name) => {
    const viaHelp = await runCli(["help", name]);
    const viaFlag = await runCli([name, "--help"]);
    expect(viaHelp.code).toBe(0);
    expect(viaFlag.code).toBe(0);
    expect(viaHelp.out).toBe(viaFlag.out);
    expect(viaHelp.out).toContain(`Usage: agentrt ${name}`);
    expect((await runCli([name, "-h"])).out).toBe(viaHelp.out);
  });

  it.each(NAMES)("%s --help describes each option in a sentence and shows an example", async (name) => {
    const { out } = await runCli([name, "--help"]);
    const command = commands.find((c) => c.name === name)!;
    for (const flag of [...Object.keys(command.flags), "db", "json", "help"]) {
      const line = out.split("\n").find((l) => new RegExp(`^  (-\\w, )?--${flag}\\b`).test(l));
      expect(line, `--${flag} listed`).toBeDefined();
      // The flag, its value placeholder, then at least a few words of description.
      expect(line!.replace(/^\s*(-\w, )?--[\w-]+( [A-Z_|.<>]+)?/, "").trim().split(/\s+/).length, `--${flag} described: ${line}`).toBeGreaterThanOrEqual(3);
    }
    const examples = out.split("\n").slice(out.split("\n").indexOf("Examples:") + 1);
    expect(out).toContain("Examples:");
    expect(examples.some((l) => l.trim().startsWith(`agentrt ${name}`))).toBe(true);
  });

  it("run's help describes --message in words, not just VALUE", async () => {
    const { out } = await runCli(["help", "run"]);
    expect(out).not.toBe((await runCli(["help"])).out);
    expect(out).toMatch(/-m, --message TEXT +\S+ \S+/);
    expect(out).toMatch(/--queue +.*worker/);
  });

  it("help for an unknown command exits 2 with one line", async () => {
    const { code, errLines } = await runCli(["help", "nope"]);
    expect(code).toBe(2);
    expect(errLines).toHaveLength(1);
    expect(errLines[0]).toMatch(/unknown command "nope"/);
  });

  it("--help wins over a mistake elsewhere on the line", async () => {
    const { code, out } = await runCli(["run", "--bogus", "--help"]);
    expect(code).toBe(0);
    expect(out).toContain("Usage: agentrt run");
  });
});
