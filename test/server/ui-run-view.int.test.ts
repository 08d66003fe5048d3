// The run page in headless Chromium, held against LangSmith's run view and Temporal's Web UI: a span opens its
// input and output, the conversation is never cut off, the state reads as messages (raw JSON on request), an open
// question shows once, 800 px keeps the trace readable, a run can be canceled (as the cancel route allows) and its
// status changes are listed. Also: a run the Runtime started (as the CLI does) shows whole, on SQLite and PostgreSQL.
import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Runtime } from "../../src/runtime/index.js";
import type { AgentServer } from "../../src/server/server.js";
import { graphEntry, ROLLBACK_INPUT, serverBackends, startTestServer } from "./harness.js";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
const GRAPHS = { ops_rollback: graphEntry("ops_rollback"), city_weather: graphEntry("city_weather"), order_delay: graphEntry("order_delay") };
const ROLLBACK = ROLLBACK_INPUT.messages[0]!.content;

interface RunView { run_id: string; graph: string; status: string; thread_id: string }

let browser: Browser;
beforeAll(async () => {
  if (!hasChromium) return;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

async function open(url: string, width = 1280): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 1000 } });
  // Two cores shared by many processes: wait for elements, never for "load".
  page.setDefaultTimeout(50_000);
  await page.goto(url, { waitUntil: "domcontentloaded" });
  return page;
}

/** As `agentrt run GRAPH --user USER --message TEXT` does: the Runtime alone on the server's database. */
async function submitLikeCli(project: { db: string; config: string }, graph: string, message: string, user = "carol"): Promise<RunView> {
  const runtime = Runtime.open({ db: project.db, config: project.config });
  try {
    return await runtime.submit({ graph, message, user });
  } finally {
    await runtime.close();
  }
}

describe.skipIf(!hasChromium).each(serverBackends(import.meta.url))("a run started by the Runtime, on $backend", ({ db }) => {
  it("shows its conversation, checkpoints and path in /ui", { timeout: 120_000 }, async () => {
    const { server, project } = await startTestServer({ db: db() }, GRAPHS);
    try {
      const run = await submitLikeCli(project, "ops_rollback", ROLLBACK);
      expect(run.status).toBe("WAITING_APPROVAL");
      const page = await open(`${server.url}/ui#run=${run.run_id}`);
      await page.locator("#run-status", { hasText: "WAITING_APPROVAL" }).waitFor();
      await page.locator("#conversation .msg.human").first().waitFor();
      expect(await page.locator("#conversation .msg.ai").count()).toBeGreaterThan(1);
      expect(await page.locator("#conversation").textContent()).not.toContain("No messages");
      expect(await page.locator("#timeline .tick").count()).toBeGreaterThan(2);
      await page.locator("#graph svg .active").first().waitFor();
      expect(await page.locator("#graph svg .active").textContent()).toContain("tools");
      expect(await page.locator("#graph svg .visited").count()).toBeGreaterThan(1);
      await page.close();
    } finally {
      await server.close();
    }
  });
});

describe.skipIf(!hasChromium)("the run page", { timeout: 120_000 }, () => {
  let server: AgentServer;
  let project: { db: string; config: string };
  const runs = async (): Promise<RunView[]> => (await (await fetch(`${server.url}/agentrt/runs`)).json()) as RunView[];
  const wait = async (assistant: string, content: string): Promise<void> => {
    await (await fetch(`${server.url}/runs/wait`, {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: assistant, input: { messages: [{ role: "user", content }] } }),
    })).text();
  };
  // The three-city run made first (runs are listed newest first).
  const finished = async (): Promise<RunView> => (await runs()).filter((r) => r.graph === "city_weather" && r.status === "SUCCEEDED").at(-1)!;

  beforeAll(async () => {
    ({ server, project } = await startTestServer({}, GRAPHS));
    await wait("city_weather", "Weather for Beijing, Shanghai and Shenzhen");
    await wait("order_delay", "Is my order delayed?");
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it("opens a tool span's arguments and result, and a model span's prompt and completion", async () => {
    const page = await open(`${server.url}/ui#run=${(await finished()).run_id}`);
    const toolRow = page.locator("#trace .row", { has: page.locator(".bar.kind-tool_call") }).first();
    await toolRow.waitFor();
    expect(await page.locator("#span-detail").isVisible()).toBe(false);
    await toolRow.click();
    await page.locator("#span-detail .span-args").waitFor();
    expect(await page.locator("#span-detail .span-args").textContent()).toMatch(/"city": "(Beijing|Shanghai|Shenzhen)"/);
    expect(await page.locator("#span-detail .span-result").textContent()).toMatch(/temperature|°|condition/i);
    expect(await page.locator("#span-detail .facts").textContent()).toContain("tool call id");

    await page.locator("#trace .row", { has: page.locator(".bar.kind-model_call") }).first().click();
    await page.locator("#span-detail .span-completion .msg.ai").waitFor();
    expect(await page.locator("#span-detail .span-prompt .msg.human").textContent()).toContain("Weather for Beijing");
    expect(await page.locator("#span-detail .span-completion .tool-call").count()).toBeGreaterThan(0);
    expect(await page.locator("#span-detail .facts").textContent()).toMatch(/tokens\d+ in \/ \d+ out/);
    await page.close();
  });

  it("shows the whole conversation, not a box that cuts it off", async () => {
    // Nine cities: a conversation taller than any fixed box.
    await wait("city_weather", "Weather for Beijing, Shanghai, Shenzhen, Guangzhou, Hangzhou, Chengdu, London, New York and Tokyo");
    const run = (await runs()).find((r) => r.graph === "city_weather" && r.status === "SUCCEEDED")!;
    const page = await open(`${server.url}/ui#run=${run.run_id}`);
    await page.locator("#conversation .msg.tool").nth(8).waitFor();
    const box = await page.locator("#conversation").evaluate((n) => ({ scroll: n.scrollHeight, client: n.clientHeight }));
    expect(box.scroll).toBeLessThanOrEqual(box.client + 1);
    await page.close();
  });

  it("draws a checkpoint's messages readably, with the raw JSON behind a toggle", async () => {
    const page = await open(`${server.url}/ui#run=${(await finished()).run_id}`);
    // The newest checkpoint: the model's answer it added, drawn out; the messages before it folded.
    await page.locator("#state-messages > .msg.ai").first().waitFor();
    expect(await page.locator("#state-messages > details.earlier > summary").textContent()).toMatch(/^\d+ earlier messages$/);
    // The step that took the user's message in shows it.
    await page.locator("#timeline .tick", { hasText: /^0$/ }).click();
    expect(await page.locator("#state-messages > .msg.human").textContent()).toContain("Weather for Beijing");
    expect(await page.locator("#state-view").isVisible()).toBe(false);
    // Nothing but drawn parts: no stray text such as a "null" where a part was left out.
    expect(await page.locator("#state-messages, #state-other").evaluateAll((boxes) => boxes.flatMap((b) => [...(b as unknown as { childNodes: { nodeType: number }[] }).childNodes]).filter((n) => n.nodeType === 3).length)).toBe(0);
    await page.locator("#state-raw-toggle").click();
    await page.locator("#state-view").waitFor();
    expect(await page.locator("#state-view").textContent()).toContain('"messages"');
    await page.close();
  });

  it("shows an open question once, in its form", async () => {
    const run = (await runs()).find((r) => r.graph === "order_delay" && r.status === "WAITING_INPUT")!;
    const page = await open(`${server.url}/ui#run=${run.run_id}`);
    await page.locator(".input-request").waitFor();
    await page.locator("#timeline .tick").first().waitFor();
    const text = await page.locator("main").innerText();
    expect(text.split("Which order should I check?").length - 1).toBe(1);
    await page.close();
  });

  it("keeps the trace's columns apart and its timeline visible at 800 px", async () => {
    const page = await open(`${server.url}/ui#run=${(await finished()).run_id}`, 800);
    const row = page.locator("#trace .row", { has: page.locator(".bar.kind-model_call") }).first();
    await row.waitFor();
    const boxes = await row.evaluate((r) => [...r.children].map((c) => c.getBoundingClientRect())
      .filter((b) => b.width > 0).map((b) => ({ left: b.left, right: b.right, width: b.width })));
    expect(boxes.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < boxes.length; i++) expect(boxes[i]!.left).toBeGreaterThanOrEqual(boxes[i - 1]!.right);
    const track = await row.locator(".track").boundingBox();
    expect(track!.width).toBeGreaterThan(100);
    const main = await page.locator("#trace").boundingBox();
    expect(boxes[boxes.length - 1]!.right).toBeLessThanOrEqual(main!.x + main!.width + 1);
    await page.close();
  });

  it("cancels a waiting run from its cancel button and lists its status changes", async () => {
    const run = await submitLikeCli(project, "ops_rollback", ROLLBACK);
    const page = await open(`${server.url}/ui#run=${run.run_id}`);
    await page.locator("#run-status", { hasText: "WAITING_APPROVAL" }).waitFor();
    await page.locator("#events li[data-to=WAITING_APPROVAL]").waitFor();
    await page.locator("#cancel-run").click();
    expect(((await runs()).find((r) => r.run_id === run.run_id))!.status).toBe("WAITING_APPROVAL");
    await page.locator("#cancel-run").click();
    await page.locator("#run-status", { hasText: "CANCELED" }).waitFor();
    expect(((await runs()).find((r) => r.run_id === run.run_id))!.status).toBe("CANCELED");
    await page.locator("#events li[data-to=CANCELED]").waitFor();
    const moves = await page.locator("#events li").evaluateAll((items) => items.map((li) => {
      const { dataset } = li as unknown as { dataset: Record<string, string> };
      return `${dataset.from}>${dataset.to}`;
    }));
    expect(moves.slice(-2)).toEqual(["RUNNING>WAITING_APPROVAL", "WAITING_APPROVAL>CANCELED"]);
    expect(moves[0]).toMatch(/^>/);
    expect(await page.locator("#events li[data-to=CANCELED] .who").textContent()).toBe("by anonymous");
    expect(await page.locator("#events li[data-to=CANCELED]").textContent()).toContain("canceled over the API");
    expect(await page.locator("#cancel-run").count()).toBe(0);
    await page.close();
  });

  it("refuses a cancel the HTTP cancel route refuses: with keys, only the run's owner (or an admin) may", async () => {
    const { server: keyed } = await startTestServer({ apiKey: "alice:alice-key-1234,bob:bob-key-56789" }, GRAPHS);
    try {
      await (await fetch(`${keyed.url}/runs/wait`, {
        method: "POST", headers: { "content-type": "application/json", "x-api-key": "alice-key-1234" },
        body: JSON.stringify({ assistant_id: "ops_rollback", input: ROLLBACK_INPUT }),
      })).text();
      const [run] = (await (await fetch(`${keyed.url}/agentrt/runs`, { headers: { "x-api-key": "alice-key-1234" } })).json()) as RunView[];
      // bob may not even read alice's run (the ownership rule), so his page never offers the button; the request
      // the button sends is refused to him by the cancel route's own rule (owner or admin).
      const refused = await fetch(`${keyed.url}/threads/${run!.thread_id}/runs/${run!.run_id}/cancel?wait=true`, {
        method: "POST", headers: { "content-type": "application/json", "x-api-key": "bob-key-56789" }, body: "{}",
      });
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { code: string }).code).toBe("APPROVER_NOT_ALLOWED");
      const alice = await open(`${keyed.url}/ui?key=alice-key-1234#run=${run!.run_id}`);
      await alice.locator("#cancel-run").click();
      await alice.locator("#cancel-run").click();
      await alice.locator("#run-status", { hasText: "CANCELED" }).waitFor();
      await alice.locator("#events li[data-to=CANCELED]", { hasText: "by alice" }).waitFor();
      await alice.close();
    } finally {
      await keyed.close();
    }
  });
});
