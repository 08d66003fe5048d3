// `npm run bench -- <name>` runs bench/<name>.ts; with no name, every bench in turn.
import { readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL(".", import.meta.url));
const available = readdirSync(dir)
  .filter((f) => f.endsWith(".ts") && f !== "index.ts" && !f.startsWith("_"))
  .map((f) => f.slice(0, -3));
const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !available.includes(w));
if (unknown.length > 0) {
  process.stderr.write(`unknown bench: ${unknown.join(", ")} (available: ${available.join(", ") || "none"})\n`);
  process.exit(2);
}
for (const name of wanted.length > 0 ? wanted : available) {
  process.stdout.write(`\n# bench ${name}\n`);
  const result = spawnSync(process.execPath, ["--import", "tsx", `${dir}${name}.ts`], { stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
