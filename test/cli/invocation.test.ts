// The commands the CLI prints for the user to paste start as the user ran it: `npm run agentrt --` in a checkout,
// `npx agentrt` through npx or an installed bin off the PATH, `agentrt` when that bin is on the PATH.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliPrefix } from "../../src/cli/invocation.js";

/** An installed bin (`node_modules/agentrt/dist/src/cli/bin.js`) and a directory whose `agentrt` links to it. */
function installedBin(): { script: string; binDir: string } {
  const root = mkdtempSync(join(tmpdir(), "agentrt-inv-"));
  const dist = join(root, "node_modules/agentrt/dist/src/cli");
  mkdirSync(dist, { recursive: true });
  const script = join(dist, "bin.js");
  writeFileSync(script, "");
  const binDir = join(root, "node_modules/.bin");
  mkdirSync(binDir, { recursive: true });
  symlinkSync(script, join(binDir, "agentrt"));
  return { script, binDir };
}

describe("cliPrefix", () => {
  it("says npm run agentrt -- for npm's script and for the sources run in a checkout", () => {
    expect(cliPrefix({ env: { npm_lifecycle_event: "agentrt" }, script: "/repo/src/cli/bin.ts" })).toBe("npm run agentrt --");
    expect(cliPrefix({ env: {}, script: "/repo/src/cli/bin.ts" })).toBe("npm run agentrt --");
  });

  it("says npx agentrt through npx, also when the checkout's bin hands over to its sources", () => {
    expect(cliPrefix({ env: { npm_command: "exec" }, script: "/repo/src/cli/bin.ts" })).toBe("npx agentrt");
    expect(cliPrefix({ env: { npm_command: "exec" }, script: installedBin().script })).toBe("npx agentrt");
  });

  it("says agentrt only when that name on the PATH is this bin, else npx agentrt", () => {
    const { script, binDir } = installedBin();
    expect(cliPrefix({ env: { PATH: `/nowhere:${binDir}` }, script })).toBe("agentrt");
    expect(cliPrefix({ env: { PATH: "/nowhere" }, script })).toBe("npx agentrt");
    // Another agentrt on the PATH is not this one.
    expect(cliPrefix({ env: { PATH: installedBin().binDir }, script })).toBe("npx agentrt");
  });
});
