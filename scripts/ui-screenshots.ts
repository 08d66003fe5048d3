// Screenshots of the run viewer (/ui) for the docs: starts a server on a fresh file, makes a finished
// city_weather run, a failed run, an order_delay run waiting for input and an ops_rollback run waiting for
// approval, and saves the run list and run pages as docs/img/ui-<prefix>-*.png.
// Usage: npx tsx scripts/ui-screenshots.ts [prefix=after]   (needs /usr/bin/chromium; never downloads one)
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { startServer } from "../src/server/server.js";

const prefix = process.argv[2] ?? "after";
const root = fileURLToPath(new URL("..", import.meta.url));
const graph = (name: string): string => join(root, "graphs", `${name}.ts:graph`);
const dir = mkdtempSync(join(tmpdir(), "agentrt-ui-shots-"));
writeFileSync(join(dir, "langgraph.json"), JSON.stringify({
  graphs: { ops_rollback: graph("ops_rollback"), city_weather: graph("city_weather"), order_delay: graph("order_delay") },
}));
const server = await startServer({ port: 0, db: join(dir, "agentrt.db"), config: join(dir, "langgraph.json"), log: () => undefined, apiKey: "" });

async function wait(assistant: string, content: string, extra: Record<string, unknown> = {}): Promise<void> {
  const res = await fetch(`${server.url}/runs/wait`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ assistant_id: assistant, input: { messages: [{ role: "user", content }] }, ...extra }),
  });
  await res.text();
}
await wait("city_weather", "Weather for Beijing, Shanghai and Shenzhen");
await wait("order_delay", "Is my order delayed? Please notify the sales rep.");
await wait("city_weather", "x", { config: { recursion_limit: 1 } });
await wait("ops_rollback", "Why did the payments deploy fail? Roll back if needed.");

const runs = (await (await fetch(`${server.url}/agentrt/runs`)).json()) as { run_id: string; graph: string; status: string }[];
const find = (graphId: string, status: string): string | undefined => runs.find((r) => r.graph === graphId && r.status === status)?.run_id;

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
});
const page = await browser.newPage({ viewport: { width: 1440, height: 1900 } });
const out = join(root, "docs", "img");
mkdirSync(out, { recursive: true });
const shots: Array<[string, string | undefined]> = [
  ["list", undefined],
  ["approval", find("ops_rollback", "WAITING_APPROVAL")],
  ["succeeded", find("city_weather", "SUCCEEDED")],
  ["input", find("order_delay", "WAITING_INPUT")],
  ["failed", find("city_weather", "FAILED")],
];
for (const [name, runId] of shots) {
  await page.goto("about:blank"); // a new hash alone would not load the page again
  await page.goto(`${server.url}/ui${runId === undefined ? "" : `#run=${runId}`}`);
  if (runId !== undefined) await page.locator("#graph svg").waitFor({ timeout: 60_000 });
  else await page.locator("#run-list .run").first().waitFor();
  await page.waitForTimeout(500);
  const file = join(out, `ui-${prefix}-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  process.stdout.write(`${file}${runId === undefined ? "" : ` (${runId})`}\n`);
}
// The same ops_rollback run once approved: its wait stays a narrow slot between the steps before and after it.
const paused = find("ops_rollback", "WAITING_APPROVAL");
if (paused !== undefined) {
  const [action] = ((await (await fetch(`${server.url}/agentrt/runs/${paused}`)).json()) as { pending: { action_id: string; args_hash: string }[] }).pending;
  await new Promise((resolve) => setTimeout(resolve, 3000)); // a wait long enough to be worth collapsing
  await (await fetch(`${server.url}/agentrt/runs/${paused}/approve`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ action_id: action!.action_id, args_hash: action!.args_hash }),
  })).text();
  await page.goto("about:blank");
  await page.goto(`${server.url}/ui#run=${paused}`);
  await page.locator("#graph svg").waitFor({ timeout: 60_000 });
  await page.waitForTimeout(500);
  const file = join(out, `ui-${prefix}-approved.png`);
  await page.screenshot({ path: file, fullPage: true });
  process.stdout.write(`${file} (${paused})\n`);
}
await browser.close();
await server.close();
