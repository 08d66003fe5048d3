// `npm run bench -- <name> [--flag value]…` runs bench/<name>.ts (flags passed on to it); with no name, every bench in turn.
import { readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL(".", import.meta.url));
const available = readdirSync(dir)
  .filter((f) => f.endsWith(".ts") && f !== "index.ts" && !f.startsWith("_"))
  .map((f) => f.slice(0, -3));
// A `--flag` takes the next word as its value unless that is a flag too; names are the other words.
const args = process.argv.slice(2);
const wanted: string[] = [];
const flags: string[] = [];
for (let i = 0; i < args.length; i++) {
  const arg = args[i] ?? "";
  if (!arg.startsWith("--")) wanted.push(arg);
  else {
    flags.push(arg);
    const next = args[i + 1];
    if (!arg.includes("=") && next !== undefined && !next.startsWith("--")) {
      flags.push(next);
      i++;
    }
  }
}
const unknown = wanted.filter((w) => !available.includes(w));
if (unknown.length > 0) {
  process.stderr.write(`unknown bench: ${unknown.join(", ")} (available: ${available.join(", ") || "none"})\n`);
  process.exit(2);
}
for (const name of wanted.length > 0 ? wanted : available) {
  process.stdout.write(`\n# bench ${name}\n`);
  const result = spawnSync(process.execPath, ["--import", "tsx", `${dir}${name}.ts`, ...flags], { stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
