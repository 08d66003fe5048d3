// `npm run agentrt -- …` in a checkout. With dist/ built (npm install's `prepare` builds it), the compiled bin
// decides: a read command on a fresh dist/ runs there, in this process; anything else runs the sources under tsx
// (src/cli/checkout-sources.ts). Without dist/, the sources under tsx. Plain JavaScript: nothing to compile first.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = `${root}dist/src/cli/bin.js`;
if (existsSync(bin)) {
  await import(pathToFileURL(bin).href);
} else {
  const child = spawn(process.execPath, ["--import", "tsx", `${root}src/cli/bin.ts`, ...process.argv.slice(2)], { stdio: "inherit" });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => {
    process.exitCode = code ?? (signal === null ? 1 : 128 + ({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }[signal] ?? 1));
  });
}
