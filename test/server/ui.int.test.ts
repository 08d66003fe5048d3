// The run viewer in headless Chromium: open a waiting ops_rollback run, see its graph and trace, click approve, see SUCCEEDED.
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentServer } from "../../src/server/server.js";
import { ROLLBACK_INPUT, startTestServer } from "./harness.js";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`skipping the run viewer browser test: ${CHROMIUM} is missing (apt-get install chromium)`);

describe.skipIf(!hasChromium)("run viewer at /ui", () => {
  let server: AgentServer;
  let browser: Browser;

  beforeAll(async () => {
    ({ server } = await startTestServer());
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("shows a waiting run with its graph and trace, and approving it from the page makes it succeed", async () => {
    const waiting = await fetch(`${server.url}/runs/wait`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ assistant_id: "ops_rollback", input: ROLLBACK_INPUT }) });
    expect(waiting.status).toBe(200);
    const [run] = (await (await fetch(`${server.url}/agentrt/runs?status=WAITING_APPROVAL`)).json()) as { run_id: string }[];

    const page = await browser.newPage();
    const external: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith(server.url)) external.push(request.url());
    });
    await page.goto(`${server.url}/ui#run=${run!.run_id}`);
    await page.locator("#run-status", { hasText: "WAITING_APPROVAL" }).waitFor();
    await page.locator(`.run[data-run-id="${run!.run_id}"]`).waitFor();
    await page.locator("#graph svg").waitFor();
    expect(await page.locator("#graph svg").textContent()).toContain("tools");
    expect(await page.locator("#trace .bar").count()).toBeGreaterThan(2);
    expect(await page.locator(".approval").textContent()).toContain("rollback_deployment");

    await page.locator("button.approve").click();
    await page.locator("#run-status", { hasText: "SUCCEEDED" }).waitFor();
    expect(await page.locator("#run-result").textContent()).toMatch(/Rolled back to/);
    expect(await page.locator(".approval").count()).toBe(0);
    expect(external).toEqual([]);
  });
});
