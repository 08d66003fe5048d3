/**
 * `npx agentrt` inside an agentrt checkout: the bin on the PATH is the compiled `dist/` copy, stale as soon as
 * the user edits `src/` or `graphs/`. When that copy sits in a checkout that has the sources and tsx, the bin
 * runs the sources under tsx instead (what `npm run agentrt` does), in a child process with the same
 * arguments, streams and exit code. An installed package ships no sources, so it always runs `dist/`.
 *
 * A read command (`status`, `runs`, `trace`…) runs `dist/` itself when it is fresh (built after every source it
 * compiles was last changed): it loads no graph, and a second process under tsx cost most of its startup.
 * @module
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, extname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** How to run a checkout's sources instead of its compiled bin. */
export interface CheckoutSources {
  /** `src/cli/bin.ts` of the checkout. */
  bin: string;
  /** tsx's loader, as a URL for `--import`. */
  tsx: string;
  /** The checkout's tsconfig.json (maps `agentrt` to its sources), whatever the working directory. */
  tsconfig: string;
}

/**
 * The sources to run for the compiled bin at `binUrl` (`<checkout>/dist/src/cli/bin.js`), or undefined: not a
 * compiled bin in a checkout, no `src/cli/bin.ts` beside `dist/`, no tsx installed, or `AGENTRT_USE_DIST=1`.
 */
export function checkoutSources(binUrl: string, env: NodeJS.ProcessEnv = process.env, args: readonly string[] = []): CheckoutSources | undefined {
  if (env.AGENTRT_USE_DIST === "1") return undefined;
  const bin = fileURLToPath(binUrl);
  if (extname(bin) !== ".js" || basename(resolve(dirname(bin), "../..")) !== "dist") return undefined;
  const root = resolve(dirname(bin), "../../..");
  const source = join(root, "src/cli/bin.ts");
  if (!existsSync(source)) return undefined;
  if (READ_COMMANDS.has(args[0] ?? "") && distIsFresh(root)) return undefined;
  let tsx: string;
  try {
    tsx = createRequire(join(root, "package.json")).resolve("tsx");
  } catch {
    return undefined;
  }
  return { bin: source, tsx: pathToFileURL(tsx).href, tsconfig: join(root, "tsconfig.json") };
}

/** Commands that only read the database and load no graph: a fresh `dist/` runs them as the sources would. */
export const READ_COMMANDS: ReadonlySet<string> = new Set(["status", "runs", "trace", "stats", "world", "info"]);

/** The folders `npm run build` compiles into `dist/` (tsconfig.build.json's `include`). */
const COMPILED = ["src", "checkpointers", "graphs"];

/** True when every `.ts` source of the checkout at `root` has its compiled `.js` in `dist/`, written after it changed. */
export function distIsFresh(root: string): boolean {
  for (const top of COMPILED) {
    const dir = join(root, top);
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".d.ts")) continue;
      const file = join(entry.parentPath, entry.name);
      const twin = join(root, "dist", relative(root, file).replace(/\.ts$/, ".js"));
      if (!existsSync(twin) || statSync(twin).mtimeMs < statSync(file).mtimeMs) return false;
    }
  }
  return true;
}

/** Runs the sources with `args` and resolves with their exit code; signals this process gets are passed on. */
export function runSources(sources: CheckoutSources, args: readonly string[]): Promise<number> {
  const child = spawn(process.execPath, [...process.execArgv, "--import", sources.tsx, sources.bin, ...args], {
    stdio: "inherit",
    env: { ...process.env, TSX_TSCONFIG_PATH: sources.tsconfig },
  });
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  const handlers = (["SIGINT", "SIGTERM", "SIGHUP"] as const).map((signal) => [signal, forward(signal)] as const);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  return new Promise((resolveExit, reject) => {
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      for (const [name, handler] of handlers) process.off(name, handler);
      // A child ended by a signal: the shell's convention, 128 + its number.
      resolveExit(code ?? 128 + (signal === null ? 0 : signalNumber(signal)));
    });
  });
}

function signalNumber(signal: NodeJS.Signals): number {
  return ({ SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 } as Partial<Record<NodeJS.Signals, number>>)[signal] ?? 1;
}
