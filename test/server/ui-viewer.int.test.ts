// The run viewer in headless Chromium against a real server (port 0, a real SQLite file): the run list (newest
// first, relative times, filter, search), a run page (conversation, graph path, waterfall coloured by kind, state
// timeline, errors with their code), the approve and input forms moving runs on, and live updates without a reload.
import { existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentServer } from "../../src/server/server.js";
import { graphEntry, ROLLBACK_INPUT, startTestServer } from "./harness.js";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
// Where the test leaves its screenshots (never docs/img: a test run must not change tracked files; scripts/ui-screenshots.ts makes those).
const SHOTS = join(process.env.AGENTRT_UI_SHOTS ?? join(tmpdir(), "agentrt-ui-shots"), "/");
const GRAPHS = { ops_rollback: graphEntry("ops_rollback"), city_weather: graphEntry("city_weather"), order_delay: graphEntry("order_delay") };

interface RunView { run_id: string; graph: string; status: string; thread_id: string; pending: { args: Record<string, unknown> }[] }

describe.skipIf(!hasChromium)("run viewer at /ui in a browser", { timeout: 120_000 }, () => {
  let server: AgentServer;
  let browser: Browser;

  async function wait(assistant: string, content: string, extra: Record<string, unknown> = {}): Promise<void> {
    const res = await fetch(`${server.url}/runs/wait`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: assistant, input: { messages: [{ role: "user", content }] }, ...extra }),
    });
    await res.text();
  }
  async function runs(): Promise<RunView[]> {
    return (await (await fetch(`${server.url}/agentrt/runs`)).json()) as RunView[];
  }
  async function open(hash = ""): Promise<{ page: Page; failed: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1440, height: 1900 } });
    const failed: string[] = [];
    page.on("response", (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    page.on("requestfailed", (r) => {
      // The live stream is cut when the page closes; anything else failing is a bug.
      if (!r.url().includes("/agentrt/events")) failed.push(`failed ${r.url()}`);
    });
    page.on("request", (r) => {
      if (!r.url().startsWith(server.url) && !r.url().startsWith("data:")) failed.push(`external ${r.url()}`);
    });
    // Two cores shared by many processes: a page can take long to load, so wait for elements, not for "load".
    page.setDefaultTimeout(50_000);
    await page.goto(`${server.url}/ui${hash}`, { waitUntil: "domcontentloaded" });
    return { page, failed };
  }

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    ({ server } = await startTestServer({}, GRAPHS));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
    });
    await wait("city_weather", "Weather for Beijing, Shanghai and Shenzhen");
    await wait("city_weather", "x", { config: { recursion_limit: 1 } });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("lists runs newest first with relative times, filters by status and searches by graph", async () => {
    await wait("order_delay", "Is my order delayed?");
    const { page, failed } = await open();
    const items = page.locator("#run-list .run");
    await items.first().waitFor();
    const listed = await items.evaluateAll((nodes) => nodes.map((n) => (n as unknown as { dataset: { runId: string } }).dataset.runId));
    expect(listed).toEqual((await runs()).map((r) => r.run_id));
    expect(await items.first().locator(".when").textContent()).toMatch(/just now|\d+s ago/);

    await page.selectOption("#status-filter", "FAILED");
    await expect.poll(() => items.count()).toBe(1);
    expect(await items.first().textContent()).toContain("FAILED");
    await page.selectOption("#status-filter", "");
    await page.fill("#search", "order_del");
    await expect.poll(() => items.count()).toBe(1);
    expect(await items.first().textContent()).toContain("order_delay");
    await page.screenshot({ path: `${SHOTS}ui-after-list.png`, fullPage: true });
    expect(failed).toEqual([]);
    await page.close();
  });

  it("shows a finished run: conversation, graph path, waterfall bars coloured by kind with duration and tokens, state timeline", async () => {
    const run = (await runs()).find((r) => r.graph === "city_weather" && r.status === "SUCCEEDED")!;
    const { page, failed } = await open(`#run=${run.run_id}`);
    await page.locator("#run-status", { hasText: "SUCCEEDED" }).waitFor();
    await page.locator("#conversation .msg.tool").first().waitFor();
    expect(await page.locator("#conversation .msg.human").first().textContent()).toContain("Beijing");
    expect(await page.locator("#conversation .tool-call").count()).toBeGreaterThanOrEqual(3);
    await page.locator("#graph svg").waitFor();
    expect(await page.locator("#graph svg .visited").count()).toBeGreaterThan(0);

    const colour = (kind: string) => page.locator(`#trace .bar.kind-${kind}`).first().evaluate((n) => (globalThis as unknown as { getComputedStyle: (e: unknown) => { backgroundColor: string } }).getComputedStyle(n).backgroundColor);
    const [tool, model, step] = [await colour("tool_call"), await colour("model_call"), await colour("step")];
    expect(new Set([tool, model, step]).size).toBe(3);
    const modelRow = page.locator("#trace .row", { has: page.locator(".bar.kind-model_call") }).first();
    expect(await modelRow.locator(".dur").textContent()).toMatch(/\d+(\.\d+)? ?(ms|s)/);
    expect(await modelRow.locator(".tokens").textContent()).toMatch(/\d+/);
    expect(await modelRow.locator(".label").textContent()).not.toMatch(/model_call model_turn/);

    const checkpoints = page.locator("#timeline .tick");
    expect(await checkpoints.count()).toBeGreaterThan(2);
    await checkpoints.first().click();
    await expect.poll(() => page.locator("#state-view").textContent()).toContain("messages");
    await page.screenshot({ path: `${SHOTS}ui-after-succeeded.png`, fullPage: true });
    expect(failed).toEqual([]);
    await page.close();
  });

  it("shows a failed run's error with its code", async () => {
    const run = (await runs()).find((r) => r.status === "FAILED")!;
    const { page } = await open(`#run=${run.run_id}`);
    await page.locator("#run-error .code").waitFor();
    expect(await page.locator("#run-error .code").textContent()).toBe("RECURSION_LIMIT");
    await page.screenshot({ path: `${SHOTS}ui-after-failed.png`, fullPage: true });
    await page.close();
  });

  it("answers a WAITING_INPUT run from its form and the run moves on", async () => {
    const run = (await runs()).find((r) => r.graph === "order_delay" && r.status === "WAITING_INPUT")!;
    const { page, failed } = await open(`#run=${run.run_id}`);
    await page.locator(".input-request").waitFor();
    expect(await page.locator(".input-request").textContent()).toContain("Which order should I check?");
    await page.screenshot({ path: `${SHOTS}ui-after-input.png`, fullPage: true });
    await page.fill(".input-request textarea", "10086");
    await page.locator(".input-request button[type=submit]").click();
    await page.locator("#run-status", { hasText: "SUCCEEDED" }).waitFor();
    expect(await page.locator("#conversation").textContent()).toContain("10086");
    expect(failed).toEqual([]);
    await page.close();
  });

  it("approves a paused run from its form, with the wait drawn collapsed, and updates live without a reload", async () => {
    await wait("ops_rollback", ROLLBACK_INPUT.messages[0]!.content);
    const run = (await runs()).find((r) => r.graph === "ops_rollback" && r.status === "WAITING_APPROVAL")!;
    const { page, failed } = await open(`#run=${run.run_id}`);
    await page.locator(".approval").waitFor();
    expect(await page.locator(".approval").textContent()).toContain("rollback_deployment");
    await page.locator("#graph svg .active").first().waitFor();
    expect(await page.locator("#graph svg .active").textContent()).toContain("tools");
    expect(await page.locator("#trace .bar.kind-approval_wait.collapsed").count()).toBe(1);
    await page.screenshot({ path: `${SHOTS}ui-after-approval.png`, fullPage: true });

    // A run started elsewhere appears without a reload.
    await page.evaluate(() => Object.assign(globalThis, { marker: "same page" }));
    await wait("city_weather", "Weather for Shenzhen");
    await expect.poll(() => page.locator("#run-list .run").count(), { timeout: 30_000 }).toBe((await runs()).length);

    // Edit makes the arguments editable and sends a real edit: one the tool's schema refuses is shown, nothing runs.
    await page.locator(".approval button.edit").click();
    expect(await page.locator(".approval textarea.args").isEditable()).toBe(true);
    expect(await page.locator(".approval .note").textContent()).toMatch(/schema and the policy check them again/);
    const edited = { ...(run.pending[0]!.args), target_revision: "" };
    await page.locator(".approval textarea.args").fill(JSON.stringify(edited));
    await page.locator(".approval button.edit").click();
    await page.locator(".approval .form-error", { hasText: "EDIT_ARGS_INVALID" }).waitFor();
    expect((await runs()).find((r) => r.run_id === run.run_id)!.status).toBe("WAITING_APPROVAL");

    await page.locator(".approval button.approve").click();
    await page.locator("#run-status", { hasText: "SUCCEEDED" }).waitFor();
    expect(await page.locator("#run-result").textContent()).toMatch(/Rolled back to/);
    expect(await page.locator(".approval").count()).toBe(0);
    expect(await page.locator("#conversation .decision").first().textContent()).toMatch(/approved/i);
    // The wait is over: its bar stays collapsed and the steps after it are not slivers.
    // Read until the page settles: CI once read 0 for every bar, which only bars not laid out give (.bar has min-width 3px).
    await page.locator("#trace .row:has(.bar.kind-tool_call)", { hasText: "rollback_deployment" }).first().waitFor();
    const widest = (): Promise<number> => page.locator("#trace .bar.kind-tool_call")
      .evaluateAll((bars) => Math.max(...bars.map((b) => b.getBoundingClientRect().width)));
    await expect.poll(widest, { timeout: 30_000 }).toBeGreaterThan(3);
    expect(await page.evaluate(() => (globalThis as unknown as { marker?: string }).marker)).toBe("same page");
    // The one refusal is the edit the schema refused, above.
    expect(failed).toEqual([expect.stringMatching(new RegExp(`^422 .*/agentrt/runs/${run.run_id}/approve`))]);
    await page.close();
  });

  it("says how to give the API key when the server needs one, and works once given", async () => {
    const { server: keyed } = await startTestServer({ apiKey: "viewer-key-123" }, GRAPHS);
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
      page.setDefaultTimeout(50_000);
      await page.goto(`${keyed.url}/ui`, { waitUntil: "domcontentloaded" });
      await page.locator("#key-needed").waitFor();
      expect(await page.locator("#key-needed").textContent()).toContain("AGENTRT_API_KEY");
      await page.screenshot({ path: `${SHOTS}ui-after-key.png` });
      expect(await page.locator("#key-refused").isVisible()).toBe(false);
      await page.fill("#key-needed input", "wrong-key-456");
      await page.locator("#key-needed button").click();
      await page.locator("#key-refused").waitFor();
      await page.fill("#key-needed input", "viewer-key-123");
      await page.locator("#key-needed button").click();
      await page.locator("#key-needed").waitFor({ state: "hidden" });
      await page.locator("#run-list .empty").waitFor();
      await page.locator("#live.on").waitFor();
      await page.close();
    } finally {
      await keyed.close();
    }
  });
});
