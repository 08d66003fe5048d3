// agentrt is ESM only: a CommonJS require() of any entry point fails with agentrt's own hint (how to load it),
// not with node's ERR_PACKAGE_PATH_NOT_EXPORTED.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** A CommonJS project whose node_modules/agentrt is this checkout, as `npm link` would make it. */
function commonJsProject(): string {
  const project = mkdtempSync(join(tmpdir(), "agentrt-cjs-"));
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "cjs-app", version: "1.0.0", private: true }));
  mkdirSync(join(project, "node_modules"));
  symlinkSync(root, join(project, "node_modules", "agentrt"), "dir");
  return project;
}

describe("require() from CommonJS", () => {
  it.each(["agentrt", "agentrt/checkpointers", "agentrt/testing"])("%s fails with a hint to use import()", (entry) => {
    const project = commonJsProject();
    writeFileSync(join(project, "index.js"), `require(${JSON.stringify(entry)});\n`);
    const run = spawnSync(process.execPath, ["index.js"], { cwd: project, encoding: "utf8" });
    expect(run.status).not.toBe(0);
    expect(run.stderr).not.toContain("ERR_PACKAGE_PATH_NOT_EXPORTED");
    expect(run.stderr).toContain(`${entry} is an ES module package and cannot be loaded with require()`);
    expect(run.stderr).toContain(`await import(${JSON.stringify(entry)})`);
  });
});
