// `run --input` is checked against the graph's input schema: a key the graph does not take is refused before
// anything is stored (LangGraph would silently drop it and the run would go on without it).
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

let db = "";
beforeEach(() => {
  db = join(mkdtempSync(join(tmpdir(), "agentrt-input-schema-")), "runs.db");
});
const cli = (...args: string[]) => runCli([...args, "--db", db]);

describe("run --input against the graph's input schema", () => {
  it.each([[["run", "city_weather"]], [["run", "city_weather", "--queue"]]])("refuses unknown keys: %j", async (base) => {
    const { code, errLines, err } = await cli(...base, "--input", '{"foo":1}');
    expect(code).toBe(2);
    expect(errLines).toHaveLength(1);
    expect(err).toMatch(/"foo"/);
    expect(err).toMatch(/city_weather/);
    expect(err).toMatch(/messages/);
    expect(existsSync(db)).toBe(false);
  });

  it("refuses an unknown key beside known ones", async () => {
    const { code, err } = await cli("run", "city_weather", "--input", '{"messages":[{"role":"user","content":"Weather in Paris"}],"mesages":[]}');
    expect(code).toBe(2);
    expect(err).toMatch(/"mesages"/);
    expect(existsSync(db)).toBe(false);
  });

  it("takes an input of the graph's own keys", async () => {
    const { code, out } = await cli("run", "city_weather", "--input", '{"messages":[{"role":"user","content":"Weather in Paris"}]}', "--json");
    expect(code).toBe(0);
    expect((JSON.parse(out) as { status: string }).status).toBe("SUCCEEDED");
  });
});
