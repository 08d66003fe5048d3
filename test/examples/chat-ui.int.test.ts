// examples/chat-ui (React + useStream) in headless Chromium against `agentrt serve` in its own process: the
// question, the answer streamed token by token, the approval rendered from the interrupt's HITL fields, an edit the
// tool's schema refuses (the run keeps waiting), the approval, the final message — and `world` counting one rollback;
// then a reload in the middle of a stream (the page rejoins the run), a message typed while an approval waits (it
// supersedes the approval, the chat goes on) and a regenerated answer (a new branch of the thread).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { chromium, type Browser, type Page } from "playwright-core";
import { build } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openWorld } from "../../src/testing/index.js";
import { serveStatic, type StaticServer } from "../helpers/static-server.js";
import { ROOT, exampleDir, runExample } from "./run-example.js";

const CHROMIUM = "/usr/bin/chromium";

describe.skipIf(!existsSync(CHROMIUM))("examples/chat-ui in a browser", { timeout: 180_000 }, () => {
  let server: ChildProcess | undefined;
  let page: StaticServer | undefined;
  let browser: Browser | undefined;
  let apiUrl = "";
  const db = join(exampleDir(), "agentrt.db");

  beforeAll(async () => {
    const outDir = mkdtempSync(join(tmpdir(), "agentrt-chat-ui-"));
    await build({ configFile: join(ROOT, "examples/chat-ui/vite.config.ts"), logLevel: "silent", build: { outDir, emptyOutDir: true } });
    page = await serveStatic(outDir);
    apiUrl = await serve(db);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await page?.close();
    server?.kill("SIGTERM");
  });

  async function serve(file: string): Promise<string> {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.OPENAI_API_KEY;
    delete env.AGENTRT_API_KEY;
    delete env.VITEST;
    // Slow enough tool calls that a reload lands in the middle of a run's stream.
    env.AGENTRT_SIM_LATENCY_MS = "1200";
    server = spawn(process.execPath, ["--import", "tsx", "src/cli/bin.ts", "serve", "--port", "0", "--db", file, "--json"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "inherit"] });
    for await (const line of createInterface({ input: server.stdout! })) return (JSON.parse(line) as { url: string }).url;
    throw new Error("agentrt serve exited before listening");
  }

  /** A new tab on the chat page; every page error, console error and failed request lands in `problems`. */
  async function openChat(height = 1000): Promise<{ tab: Page; problems: string[]; streams: string[]; joins: string[] }> {
    const tab = await browser!.newPage({ viewport: { width: 1100, height } });
    tab.setDefaultTimeout(60_000);
    const problems: string[] = [];
    tab.on("pageerror", (error) => problems.push(`pageerror ${error.message}`));
    tab.on("console", (message) => {
      // The refused edit is an HTTP 422 the browser and the SDK log: expected, and checked below.
      if (message.type() === "error" && !/status of 422|HTTP 422: \{"error":"EDIT_ARGS_INVALID"/.test(message.text())) problems.push(`console ${message.text()}`);
    });
    const streams: string[] = [];
    const joins: string[] = [];
    tab.on("request", (request) => {
      if (request.method() === "GET" && /\/runs\/[^/]+\/stream/.test(request.url())) joins.push(request.url());
    });
    tab.on("response", (response) => {
      if (response.status() >= 400 && response.status() !== 422) problems.push(`${response.status()} ${response.url()}`);
      if (response.url().endsWith("/runs/stream") && response.status() === 200) void response.text().then((body) => streams.push(body), () => undefined);
    });
    await tab.goto(`${page!.url}/?api=${encodeURIComponent(apiUrl)}&graph=ops_rollback`);
    return { tab, problems, streams, joins };
  }

  const rollbacks = async () => {
    const world = await runExample("src/cli/bin.ts", ["world", "--db", db, "--json"], {});
    expect(world.code).toBe(0);
    return (JSON.parse(world.stdout) as { calls: Record<string, number> }).calls.rollback_deployment ?? 0;
  };

  it("streams the conversation, refuses a bad edit, approves, and the rollback happens once", async () => {
    const { tab, problems, streams } = await openChat();

    await tab.getByLabel("Message").fill("Why did the payments deploy fail?");
    await tab.getByLabel("Message").press("Enter");
    await expect.poll(() => tab.getByTestId("user-message").count()).toBe(1);
    const approval = tab.getByTestId("approval");
    await approval.waitFor();
    expect(await approval.textContent()).toContain("rollback_deployment");
    // The approval card renders from the interrupt chunk; the state label follows with the stream's end.
    await expect.poll(() => tab.getByTestId("state").textContent()).toBe("waiting for approval");
    const agentText = (await tab.getByTestId("agent-message").allTextContents()).join("\n");
    expect(agentText).toContain("Checking the latest payments deployment.");
    expect(agentText).toContain("needs your approval");
    await tab.screenshot({ path: join(tmpdir(), "agentrt-chat-ui-approval.png") });

    // An edit the tool's schema refuses: the reason is shown, nothing runs, the run still waits.
    await approval.getByRole("button", { name: "Edit" }).click();
    await approval.getByLabel("Arguments").fill(JSON.stringify({ service: 42, target_revision: "v1" }));
    await approval.getByRole("button", { name: "Approve edited" }).click();
    await expect.poll(async () => (await approval.getByRole("alert").textContent()) ?? "").toBe("edited arguments for rollback_deployment refused: service: Invalid input: expected string, received number");
    await approval.getByRole("button", { name: "Cancel" }).click();
    expect(await tab.getByTestId("state").textContent()).toBe("waiting for approval");

    await approval.getByRole("button", { name: "Approve" }).click();
    await expect.poll(async () => (await tab.getByTestId("agent-message").last().textContent()) ?? "", { timeout: 60_000 }).toMatch(/Rolled back to .*recovered/);
    await expect.poll(() => tab.getByTestId("approval").count()).toBe(0);
    await tab.screenshot({ path: join(tmpdir(), "agentrt-chat-ui-done.png") });
    expect(problems).toEqual([]);

    // Token by token on the wire: the first answer's text came as many "messages" events, not one.
    const first = streams[0] ?? "";
    expect(first.match(/^event: messages/gm)?.length ?? 0).toBeGreaterThan(10);

    expect(await rollbacks()).toBe(1);
  });

  it("rejoins a run after a reload, goes on when the user writes instead of approving, and regenerates an answer", async () => {
    await openWorld({ path: db }).reset();
    const { tab, problems, joins } = await openChat(1400);
    const lastMessageId = async (threadId: string) =>
      ((await (await fetch(`${apiUrl}/threads/${threadId}/state`)).json()) as { values: { messages: { id: string }[] } }).values.messages.at(-1)?.id;
    const runsOf = async (threadId: string) =>
      ((await (await fetch(`${apiUrl}/threads/${threadId}/runs`)).json()) as { metadata: { agentrt_status: string } }[]).map((r) => r.metadata.agentrt_status);

    // A reload while the run streams (its first tool call is under way): the page rejoins the run and follows it on.
    await tab.getByLabel("Message").fill("Why did the payments deploy fail?");
    await tab.getByLabel("Message").press("Enter");
    await expect.poll(async () => (await tab.getByTestId("agent-message").allTextContents()).join(" ")).toContain("Checking the latest payments deployment.");
    expect(await tab.getByTestId("state").textContent()).toBe("running");
    const threadId = new URL(tab.url()).searchParams.get("thread")!;
    expect(threadId).toBeTruthy();
    await tab.reload();
    await tab.getByTestId("approval").waitFor();
    expect(joins.some((url) => url.includes(`/threads/${threadId}/runs/`))).toBe(true);
    expect(await tab.getByTestId("user-message").count()).toBe(1);
    expect((await tab.getByTestId("agent-message").allTextContents()).join(" ")).toContain("needs your approval");

    // Writing instead of answering: the waiting run is superseded, the new one asks again, no error anywhere.
    await tab.getByLabel("Message").fill("Go ahead and roll it back.");
    await tab.getByLabel("Message").press("Enter");
    await expect.poll(() => runsOf(threadId)).toEqual(["WAITING_APPROVAL", "CANCELED"]);
    await expect.poll(() => tab.getByTestId("state").textContent()).toBe("waiting for approval");
    expect(await tab.getByTestId("user-message").count()).toBe(2);
    expect(await tab.getByTestId("approval").count()).toBe(1);
    expect(await tab.getByRole("alert").count()).toBe(0);
    // The superseded call is marked as not performed; the new run's own call waits for the approval.
    expect(await tab.getByTestId("not-performed").count()).toBe(1);
    await tab.screenshot({ path: join(tmpdir(), "agentrt-chat-ui-superseded.png") });
    await tab.getByTestId("approval").getByRole("button", { name: "Approve" }).click();
    await expect.poll(async () => (await tab.getByTestId("agent-message").last().textContent()) ?? "", { timeout: 60_000 }).toMatch(/Rolled back to .*recovered/);
    expect(await rollbacks()).toBe(1);

    // Regenerate the answer: a run from the checkpoint before it, on a new branch; the same answer comes again.
    const answers = await tab.getByTestId("agent-message").count();
    const answerId = await lastMessageId(threadId);
    await tab.getByRole("button", { name: "Regenerate" }).click();
    await expect.poll(() => runsOf(threadId)).toEqual(["SUCCEEDED", "SUCCEEDED", "CANCELED"]);
    await expect.poll(() => tab.getByTestId("state").textContent()).toBe("idle");
    expect(await tab.getByTestId("agent-message").count()).toBe(answers);
    expect(await tab.getByRole("button", { name: "Regenerate" }).count()).toBe(1);
    expect(await tab.getByTestId("agent-message").last().textContent()).toMatch(/Rolled back to .*recovered/);
    // The thread's newest state ends in a new message; the old answer stays in its history (the old branch).
    expect(await lastMessageId(threadId)).not.toBe(answerId);
    const history = (await (await fetch(`${apiUrl}/threads/${threadId}/history?limit=500`)).json()) as { values: { messages?: { id: string }[] } }[];
    expect(history.some((s) => s.values.messages?.at(-1)?.id === answerId)).toBe(true);
    await tab.screenshot({ path: join(tmpdir(), "agentrt-chat-ui-regenerated.png") });
    expect(await rollbacks()).toBe(1);
    expect(problems).toEqual([]);
  });
});
