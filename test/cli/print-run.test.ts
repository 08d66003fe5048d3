import { describe, expect, it } from "vitest";
import type { CommandContext } from "../../src/cli/command.js";
import { dbFlag } from "../../src/cli/print-run.js";

const ctx = (db: string): CommandContext => ({ db, json: false, args: [], flags: {}, out: () => undefined, err: () => undefined });

describe("dbFlag", () => {
  it("carries --db into commands printed to be copied, a URL's password masked", () => {
    expect(dbFlag(ctx("postgres://bob:hunter2@h/d?schema=s"))).toBe(" --db 'postgres://bob:***@h/d?schema=s'");
    expect(dbFlag(ctx("./other.db"))).toBe(" --db ./other.db");
    // Quoted so a copied command reads back the same word: a URL's ? and &, a space, a quote.
    expect(dbFlag(ctx("postgres://h/d?schema=s&sslmode=disable"))).toBe(" --db 'postgres://h/d?schema=s&sslmode=disable'");
    expect(dbFlag(ctx("/tmp/my runs/it's.db"))).toBe(" --db '/tmp/my runs/it'\\''s.db'");
  });
});
