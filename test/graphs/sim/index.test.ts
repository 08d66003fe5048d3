import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { allSimTools, openWorld, SIM_SYSTEMS, simTools } from "../../../graphs/sim/index.js";
import { simHarness, type SimHarness } from "./sim-context.js";

const simDir = fileURLToPath(new URL("../../../graphs/sim/", import.meta.url));

describe("graphs/sim index", () => {
  let h: SimHarness;
  beforeEach(() => {
    h = simHarness();
  });
  afterEach(() => h.close());

  it("lists every tool under its own name with a JSON schema a model can read", () => {
    for (const [name, tool] of Object.entries(simTools)) {
      expect(tool.name).toBe(name);
      expect(tool.description.length).toBeGreaterThan(40);
      expect(z.toJSONSchema(tool.schema)).toMatchObject({ type: "object" });
    }
    expect(allSimTools).toHaveLength(Object.keys(simTools).length);
  });

  it("declares risk and side effects", () => {
    const flags = (name: keyof typeof simTools) => {
      const t = simTools[name];
      return { risk: t.risk, sideEffect: t.sideEffect, idempotent: t.idempotent };
    };
    expect(flags("rollback_deployment")).toEqual({ risk: "destructive", sideEffect: true, idempotent: true });
    expect(flags("delete_ticket")).toEqual({ risk: "destructive", sideEffect: true, idempotent: true });
    expect(flags("send_message")).toEqual({ risk: "write", sideEffect: true, idempotent: true });
    for (const name of ["get_deployment", "query_logs", "verify_deployment", "get_order", "get_weather", "search_docs"] as const) {
      expect(flags(name)).toMatchObject({ risk: "read", sideEffect: false });
    }
  });

  it("opens a world whose snapshot shows every system", async () => {
    const snapshot = await (await openWorld({ db: h.db })).snapshot();
    expect(Object.keys(snapshot.systems).sort()).toEqual(SIM_SYSTEMS.map((s) => s.name).sort());
    expect(snapshot.calls).toEqual({});
    expect(snapshot.systems.helpdesk).toHaveProperty("ticket:T-1001");
  });

  it("imports agentrt only through its public entry points", () => {
    for (const file of readdirSync(simDir).filter((f) => f.endsWith(".ts"))) {
      const source = readFileSync(`${simDir}${file}`, "utf8");
      expect(source, file).not.toMatch(/from "(\.\.\/)+src\//);
    }
  });
});
