// Screenshots of the run viewer (/ui) for the docs: starts a server on a fresh file, makes a finished
// city_weather run, a failed run, an order_delay run waiting for input (over HTTP) and an ops_rollback run waiting
// for approval (started by the Runtime, as `agentrt run` does: no HTTP thread), and saves the run list and run pages
// as docs/img/ui-<prefix>-*.png at 1280 px wide, the paused and finished run pages also at 800 px (`-800`).
// Usage: npx tsx scripts/ui-screenshots.ts [prefix=after]   (needs /usr/bin/chromium; never downloads one)
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Page } from "playwright-core";
import { Runtime } from "../src/runtime/index.js";
import { startServer } from "../src/server/server.js";

const prefix = process.argv[2] ?? "after";
const root = fileURLToPath(new URL("..", import.meta.url));
const graph = (name: string): string => join(root, "graphs", `${name}.ts:graph`);
const dir = mkdtempSync(join(tmpdir(), "agentrt-ui-shots-"));
const db = join(dir, "agentrt.db");
const config = join(dir, "langgraph.json");
writeFileSync(config, JSON.stringify({
  graphs: { ops_rollback: graph("ops_rollback"), city_weather: graph("city_weather"), order_delay: graph("order_delay") },
}));
const server = await startServer({ port: 0, db, config, log: () => undefined, apiKey: "" });

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
const cli = Runtime.open({ db, config });
await cli.submit({ graph: "ops_rollback", message: "Why did the payments deploy fail? Roll back if needed.", user: "carol" });
await cli.close();

const runs = (await (await fetch(`${server.url}/agentrt/runs`)).json()) as { run_id: string; graph: string; status: string }[];
const find = (graphId: string, status: string): string | undefined => runs.find((r) => r.graph === graphId && r.status === status)?.run_id;

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
});
const out = join(root, "docs", "img");
mkdirSync(out, { recursive: true });

/** Opens the run (or the list), optionally opens a span of `spanKind`, and saves a full-page shot. */
async function shoot(page: Page, name: string, runId: string | undefined, spanKind?: string): Promise<void> {
  await page.goto("about:blank"); // a new hash alone would not load the page again
  await page.goto(`${server.url}/ui${runId === undefined ? "" : `#run=${runId}`}`);
  if (runId !== undefined) await page.locator("#graph svg").waitFor({ timeout: 60_000 });
  else await page.locator("#run-list .run").first().waitFor();
  if (spanKind !== undefined) {
    await page.locator("#trace .row", { has: page.locator(`.bar.kind-${spanKind}`) }).first().click();
    await page.locator("#span-detail").waitFor();
  }
  await page.waitForTimeout(500);
  // The run list and the run page scroll on their own: grow the window to the page's height for a whole shot.
  const height = await page.evaluate(() => {
    interface Box { scrollTop: number; offsetTop: number; offsetHeight: number; hidden: boolean; children: ArrayLike<Box> }
    const main = (globalThis as unknown as { document: { querySelector(s: string): Box } }).document.querySelector("main");
    main.scrollTop = 0;
    return Math.max(...Array.from(main.children).filter((c) => !c.hidden).map((c) => c.offsetTop + c.offsetHeight));
  });
  const width = page.viewportSize()!.width;
  // Narrow, the page itself scrolls (the run page is not a box of its own) and a full-page shot takes it whole.
  if (width > 1000) await page.setViewportSize({ width, height: Math.min(6000, Math.max(900, height + 60)) });
  await page.waitForTimeout(300);
  const file = join(out, `ui-${prefix}-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  process.stdout.write(`${file}${runId === undefined ? "" : ` (${runId})`}\n`);
}

const paused = find("ops_rollback", "WAITING_APPROVAL");
const finished = find("city_weather", "SUCCEEDED");
for (const width of [1280, 800]) {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const suffix = width === 1280 ? "" : `-${width}`;
  await shoot(page, `approval${suffix}`, paused, "tool_call");
  await shoot(page, `succeeded${suffix}`, finished, "model_call");
  if (width === 1280) {
    await shoot(page, "list", undefined);
    await shoot(page, "input", find("order_delay", "WAITING_INPUT"));
    await shoot(page, "failed", find("city_weather", "FAILED"));
  }
  await page.close();
}
// The same ops_rollback run once approved: its wait stays a narrow slot between the steps before and after it.
if (paused !== undefined) {
  const [action] = ((await (await fetch(`${server.url}/agentrt/runs/${paused}`)).json()) as { pending: { action_id: string; args_hash: string }[] }).pending;
  await new Promise((resolve) => setTimeout(resolve, 3000)); // a wait long enough to be worth collapsing
  await (await fetch(`${server.url}/agentrt/runs/${paused}/approve`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ action_id: action!.action_id, args_hash: action!.args_hash, by: "carol" }),
  })).text();
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await shoot(page, "approved", paused);
  await page.close();
}
await browser.close();
await server.close();
