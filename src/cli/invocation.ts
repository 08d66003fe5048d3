/**
 * How the user ran this CLI, so the commands it prints for them to paste work as they are: in a checkout
 * `agentrt` is not on the PATH (`npm run agentrt -- …` is), an installed package's bin is reached with
 * `npx agentrt …` unless it was installed globally.
 * @module
 */
import { existsSync, realpathSync } from "node:fs";
import { delimiter, join } from "node:path";

/** Where to look; the process's own by default (tests pass theirs). */
export interface InvocationSource {
  env: NodeJS.ProcessEnv;
  /** The script node runs: `src/cli/bin.ts` from sources, `…/dist/src/cli/bin.js` when built. */
  script: string | undefined;
}

/**
 * The words that start a pasteable command: `npm run agentrt --` (npm's script, or the sources run from a
 * checkout), `npx agentrt` (npx, or an installed bin not on the PATH), or `agentrt` (the bin on the PATH).
 */
export function cliPrefix(source: InvocationSource = { env: process.env, script: process.argv[1] }): string {
  const { env, script } = source;
  if (env.npm_lifecycle_event === "agentrt") return "npm run agentrt --";
  // npx (and `npm exec`) sets npm_command; its child (the checkout's sources, see checkout-sources.ts) inherits it.
  if (env.npm_command === "exec") return "npx agentrt";
  if (script !== undefined && script.endsWith(".ts")) return "npm run agentrt --";
  return onPath(env, script) ? "agentrt" : "npx agentrt";
}

/** True when `agentrt` on the PATH is this very script (a global install or a linked checkout). */
function onPath(env: NodeJS.ProcessEnv, script: string | undefined): boolean {
  if (script === undefined) return false;
  const self = real(script);
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, "agentrt");
    if (existsSync(candidate) && real(candidate) === self) return true;
  }
  return false;
}

function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
