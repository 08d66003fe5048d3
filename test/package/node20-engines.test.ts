// `npm install` on Node 20 (package.json says engines >= 20) must not warn EBADENGINE: no package the lock installs
// for users (dependencies, not devDependencies) may require a newer Node. @langchain/openai ≥ 1.5.9 and openai 7
// require Node 22, so @langchain/openai stays on 1.5.8 (openai 6) until agentrt itself requires Node 22.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const NODE_20 = [20, 19, 0] as const;

function parts(version: string): number[] {
  return version.replace(/^[v=]/, "").split(".").map((p) => (/^\d+$/.test(p) ? Number(p) : 0));
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

/** Whether `version` meets one comparator of an npm range (>=, >, <=, <, ^, ~, =, or a bare/partial version). */
function meets(version: readonly number[], comparator: string): boolean {
  const [, op = "", v = ""] = /^(>=|<=|>|<|\^|~|=)?\s*(.+)$/.exec(comparator) ?? [];
  if (v === "*" || v.toLowerCase() === "x") return true;
  const bound = parts(v);
  const given = v.replace(/^[v=]/, "").split(".").filter((p) => /^\d+$/.test(p)).length;
  const c = compare(version, bound);
  if (op === ">=") return c >= 0;
  if (op === ">") return c > 0;
  if (op === "<=") return c <= 0;
  if (op === "<") return c < 0;
  if (op === "^") return c >= 0 && version[0] === bound[0];
  if (op === "~") return c >= 0 && version[0] === bound[0] && (given < 2 || version[1] === bound[1]);
  // "20", "20.x", "20.19.0": the given parts must match.
  return bound.slice(0, Math.max(given, 1)).every((p, i) => version[i] === p);
}

/** Whether `version` satisfies an npm range ("a b || c"): some alternative whose comparators all hold. */
function satisfies(version: readonly number[], range: string): boolean {
  return range.split("||").some((alt) => alt.trim().replace(/(>=|<=|>|<|\^|~|=)\s+/g, "$1").split(/\s+/).filter(Boolean).every((c) => meets(version, c)));
}

describe("installing on Node 20", () => {
  it("reads npm ranges the way npm does for the forms the lock uses", () => {
    expect(satisfies(NODE_20, ">=20")).toBe(true);
    expect(satisfies(NODE_20, "*")).toBe(true);
    expect(satisfies(NODE_20, ">=22")).toBe(false);
    expect(satisfies(NODE_20, ">=22.0.0")).toBe(false);
    expect(satisfies(NODE_20, "^18.18.0 || ^20.9.0 || >=21.1.0")).toBe(true);
    expect(satisfies(NODE_20, "18 || 20 || >=22")).toBe(true);
    expect(satisfies(NODE_20, "^20.19.0 || >=22.12.0")).toBe(true);
    expect(satisfies(NODE_20, "^22.13.0 || >=23.5.0")).toBe(false);
  });

  it("installs no runtime dependency whose engines exclude Node 20 (no EBADENGINE)", () => {
    const lock = JSON.parse(readFileSync(fileURLToPath(new URL("../../package-lock.json", import.meta.url)), "utf8")) as {
      packages: Record<string, { version?: string; dev?: boolean; optional?: boolean; engines?: { node?: string } | string[] }>;
    };
    const refusing = Object.entries(lock.packages)
      .filter(([path, p]) => path !== "" && p.dev !== true && !Array.isArray(p.engines) && p.engines?.node !== undefined)
      .filter(([, p]) => !satisfies(NODE_20, (p.engines as { node: string }).node))
      .map(([path, p]) => `${path.replace(/^.*node_modules\//, "")}@${p.version ?? "?"} (node ${(p.engines as { node: string }).node})`);
    expect(refusing).toEqual([]);
  });
});
