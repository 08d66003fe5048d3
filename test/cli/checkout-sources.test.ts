// `npx agentrt` inside an agentrt checkout runs the sources the user edits (under tsx), not the compiled dist/ copy,
// which is stale after an edit; AGENTRT_USE_DIST=1 (or no tsx, or no sources: an installed package) keeps dist/.
// The real bin.ts and checkout-sources.ts are compiled into a fake checkout whose src/ and dist/ say who ran.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

function compile(from: string, to: string): void {
  const out = ts.transpileModule(readFileSync(join(root, from), "utf8"), { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
  writeFileSync(to, out.outputText);
}

/** A checkout: package.json, node_modules (with tsx), the compiled bin in dist/, and sources that print who they are. */
function checkout(options: { sources: boolean }): string {
  const dir = mkdtempSync(join(tmpdir(), "agentrt-checkout-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "agentrt", type: "module" }));
  writeFileSync(join(dir, "tsconfig.json"), "{}");
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
  const dist = join(dir, "dist/src/cli");
  mkdirSync(dist, { recursive: true });
  compile("src/cli/bin.ts", join(dist, "bin.js"));
  compile("src/cli/checkout-sources.ts", join(dist, "checkout-sources.js"));
  writeFileSync(join(dist, "main.js"), 'export async function main(args) { console.log("dist " + args.join(" ")); return 4; }\n');
  if (options.sources) {
    mkdirSync(join(dir, "src/cli"), { recursive: true });
    // Only tsx can run this (a type annotation): proof the sources ran under tsx.
    writeFileSync(join(dir, "src/cli/bin.ts"), 'const args: string[] = process.argv.slice(2);\nconsole.log("sources " + args.join(" "));\nprocess.exitCode = 3;\n');
  }
  return dir;
}

function runBin(dir: string, env: Record<string, string> = {}, args: string[] = ["graph", "order_check"]) {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete childEnv.VITEST;
  return spawnSync(process.execPath, [join(dir, "dist/src/cli/bin.js"), ...args], { cwd: tmpdir(), env: childEnv, encoding: "utf8" });
}

/** Sets a file's modification time to `seconds` after the epoch. */
const touch = (file: string, seconds: number) => utimesSync(file, seconds, seconds);

describe("the compiled bin in a checkout", () => {
  it("runs the sources under tsx, with the same arguments and exit code", () => {
    const run = runBin(checkout({ sources: true }));
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("sources graph order_check\n");
    expect(run.status).toBe(3);
  });

  it("runs dist/ when asked to (AGENTRT_USE_DIST=1)", () => {
    const run = runBin(checkout({ sources: true }), { AGENTRT_USE_DIST: "1" });
    expect(run.stdout).toBe("dist graph order_check\n");
    expect(run.status).toBe(4);
  });

  it("runs dist/ where there are no sources (an installed package)", () => {
    const run = runBin(checkout({ sources: false }));
    expect(run.stdout).toBe("dist graph order_check\n");
    expect(run.status).toBe(4);
  });

  it("runs a read command on dist/ itself when dist/ was built after every source changed", () => {
    const dir = checkout({ sources: true });
    // The source's compiled twin, older than it at first: dist/ is stale.
    touch(join(dir, "src/cli/bin.ts"), 2_000_000_000);
    touch(join(dir, "dist/src/cli/bin.js"), 1_900_000_000);
    expect(runBin(dir, {}, ["status", "run_1"]).stdout).toBe("sources status run_1\n");
    touch(join(dir, "dist/src/cli/bin.js"), 2_000_000_001);
    expect(runBin(dir, {}, ["status", "run_1"]).stdout).toBe("dist status run_1\n");
    // A command that runs graphs still runs the sources (a graph may be TypeScript dist/ does not have).
    expect(runBin(dir, {}, ["approve", "run_1"]).stdout).toBe("sources approve run_1\n");
    // A source without its compiled twin (added since the build) makes dist/ stale again.
    writeFileSync(join(dir, "src/cli/new-command.ts"), "export {};\n");
    expect(runBin(dir, {}, ["status", "run_1"]).stdout).toBe("sources status run_1\n");
  });
});
