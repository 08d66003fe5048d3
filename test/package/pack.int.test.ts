// Installs the packed tarball into an empty project and uses it the way a user would: plain node, no tsx.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
let project = "";

function run(cmd: string, args: string[], cwd: string): string {
  return execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, npm_config_fund: "false", npm_config_audit: "false" } });
}

describe("the published package", () => {
  beforeAll(() => {
    const packDir = mkdtempSync(join(tmpdir(), "agentrt-pack-"));
    // `npm pack` runs `prepare`, so the tarball holds a fresh dist/.
    run(npm, ["pack", "--pack-destination", packDir, "--silent"], root);
    const tarball = readdirSync(packDir).find((f) => f.endsWith(".tgz"));
    expect(tarball).toBeDefined();
    project = mkdtempSync(join(tmpdir(), "agentrt-user-"));
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "user-app", version: "1.0.0", type: "module", private: true }));
    // Scripts are skipped only to avoid recompiling better-sqlite3 (minutes); its native build is copied in below.
    run(npm, ["install", join(packDir, tarball!), "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund"], project);
    cpSync(join(root, "node_modules/better-sqlite3/build"), join(project, "node_modules/better-sqlite3/build"), { recursive: true });
  }, 300_000);

  it("ships dist with type declarations first in the exports map", () => {
    const pkg = JSON.parse(run("node", ["-p", "JSON.stringify(require('./node_modules/agentrt/package.json'))"], project)) as {
      exports: Record<string, Record<string, string> | string>;
    };
    for (const [entry, target] of Object.entries(pkg.exports)) {
      if (typeof target === "string") continue;
      expect(Object.keys(target)[0], entry).toBe("types");
      expect(existsSync(join(project, "node_modules/agentrt", target.types!))).toBe(true);
      expect(existsSync(join(project, "node_modules/agentrt", target.import!))).toBe(true);
    }
    expect(existsSync(join(project, "node_modules/agentrt/src"))).toBe(false);
  });

  it("imports every entry point with plain node", () => {
    const script = [
      "const main = await import('agentrt');",
      "const cp = await import('agentrt/checkpointers');",
      "const sub = {};",
      "for (const name of ['tools', 'graph', 'resilience', 'trace', 'db', 'workspace', 'testing']) sub[name] = Object.keys(await import(`agentrt/${name}`)).length;",
      "console.log(JSON.stringify({ error: typeof main.AgentrtError, runtime: typeof main.Runtime, saver: typeof cp.SqliteSaver, rootSaver: typeof main.SqliteSaver, sub }));",
    ].join("\n");
    writeFileSync(join(project, "check.mjs"), script);
    const out = JSON.parse(run("node", ["check.mjs"], project)) as { sub: Record<string, number> } & Record<string, unknown>;
    expect(out).toMatchObject({ error: "function", runtime: "function", saver: "function", rootSaver: "function" });
    for (const [name, count] of Object.entries(out.sub)) expect(count, name).toBeGreaterThan(0);
  });

  it("tells a CommonJS require() to use import() instead", () => {
    writeFileSync(join(project, "check.cjs"), "try { require('agentrt'); } catch (e) { console.log(e.message); }\n");
    expect(run("node", ["check.cjs"], project)).toContain("agentrt is an ES module package and cannot be loaded with require()");
  });

  it("runs the agentrt bin with npx", () => {
    const out = run("npx", ["--no-install", "agentrt", "--help"], project);
    expect(out).toContain("Usage: agentrt <command>");
  });
});
