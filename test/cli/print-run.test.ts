import { describe, expect, it } from "vitest";
import type { CommandContext } from "../../src/cli/command.js";
import { dbFlag } from "../../src/cli/print-run.js";

const ctx = (db: string): CommandContext => ({ db, json: false, args: [], flags: {}, out: () => undefined, err: () => undefined });

describe("dbFlag", () => {
  it("carries --db into commands printed to be copied, a URL's password masked", () => {
    expect(dbFlag(ctx("postgres://bob:hunter2@h/d?schema=s"))).toBe(" --db postgres://bob:***@h/d?schema=s");
    expect(dbFlag(ctx("./other.db"))).toBe(" --db ./other.db");
  });
});
