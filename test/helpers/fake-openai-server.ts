/**
 * A local OpenAI-compatible HTTP server for tests: `/v1/chat/completions` with
 * plain JSON and SSE streaming, real sockets on port 0. Each request is
 * recorded and answered by a `reply` function the test supplies.
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as delay } from "node:timers/promises";

/** One tool call the fake model answers with. */
export interface FakeToolCall {
  /** @default `call_<n>` counted per server */
  id?: string;
  name: string;
  args: Record<string, unknown>;
}

/** What the fake model says for one request. */
export interface FakeReply {
  /** @default "" */
  content?: string;
  /** @default [] */
  toolCalls?: FakeToolCall[];
  /** Token usage reported back. @default prompt 11, completion 7 */
  usage?: { promptTokens: number; completionTokens: number };
  /** Answer with this HTTP status and an OpenAI-style error body instead. */
  status?: number;
  /** Wait this long before answering, e.g. to exercise client timeouts. @default 0 */
  delayMs?: number;
}

/** A request as the server received it. */
export interface RecordedRequest {
  path: string;
  headers: IncomingMessage["headers"];
  body: ChatCompletionBody;
}

/** The parts of a chat completion request the fake reads. */
export interface ChatCompletionBody {
  model: string;
  messages: Array<{ role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [key: string]: unknown;
}

/** Options of {@link startFakeOpenAIServer}. */
export interface FakeOpenAIServerOptions {
  /** Decides the answer to each request. @default a fixed "ok" text reply */
  reply?: (request: RecordedRequest, index: number) => FakeReply;
}

/** A running fake server. */
export interface FakeOpenAIServer {
  /** Base URL including `/v1`, as OPENAI_BASE_URL expects. */
  baseURL: string;
  /** Every request received so far, in order. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Starts the fake on 127.0.0.1 port 0. */
export async function startFakeOpenAIServer(options: FakeOpenAIServerOptions = {}): Promise<FakeOpenAIServer> {
  const reply = options.reply ?? ((): FakeReply => ({ content: "ok" }));
  const requests: RecordedRequest[] = [];
  let callCounter = 0;
  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: String(error), type: "server_error" } }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "").split("?")[0] ?? "";
    if (req.method !== "POST" || path !== "/v1/chat/completions") {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${path}`, type: "invalid_request_error" } }));
      return;
    }
    const body = JSON.parse(await readBody(req)) as ChatCompletionBody;
    const recorded: RecordedRequest = { path, headers: req.headers, body };
    requests.push(recorded);
    const answer = reply(recorded, requests.length - 1);
    if (answer.delayMs !== undefined && answer.delayMs > 0) await delay(answer.delayMs);
    if (answer.status !== undefined && answer.status >= 400) {
      res.writeHead(answer.status, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: answer.content ?? "fake failure", type: "server_error" } }));
      return;
    }
    const toolCalls = (answer.toolCalls ?? []).map((call) => ({ ...call, id: call.id ?? `call_${++callCounter}` }));
    const completion = { ...answer, toolCalls, model: body.model };
    if (body.stream === true) writeStream(res, completion, body.stream_options?.include_usage === true);
    else writeJson(res, completion);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

interface Completion {
  model: string;
  content?: string;
  toolCalls: Array<Required<FakeToolCall>>;
  usage?: { promptTokens: number; completionTokens: number };
}

function usageOf(completion: Completion) {
  const prompt = completion.usage?.promptTokens ?? 11;
  const done = completion.usage?.completionTokens ?? 7;
  return { prompt_tokens: prompt, completion_tokens: done, total_tokens: prompt + done };
}

function writeJson(res: ServerResponse, completion: Completion): void {
  const hasTools = completion.toolCalls.length > 0;
  const payload = {
    id: "chatcmpl-fake",
    object: "chat.completion",
    created: 1_700_000_000,
    model: completion.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: completion.content ?? (hasTools ? null : ""),
          ...(hasTools
            ? {
                tool_calls: completion.toolCalls.map((call) => ({
                  id: call.id,
                  type: "function",
                  function: { name: call.name, arguments: JSON.stringify(call.args) },
                })),
              }
            : {}),
        },
        finish_reason: hasTools ? "tool_calls" : "stop",
      },
    ],
    usage: usageOf(completion),
  };
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(payload));
}

/** Streams content word by word and each tool call's arguments in two pieces, as OpenAI does. */
function writeStream(res: ServerResponse, completion: Completion, includeUsage: boolean): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const base = { id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1_700_000_000, model: completion.model };
  const send = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    res.write(`data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`);
  send([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]);
  for (const piece of (completion.content ?? "").match(/\S+\s*|\s+/g) ?? []) {
    send([{ index: 0, delta: { content: piece }, finish_reason: null }]);
  }
  completion.toolCalls.forEach((call, index) => {
    const args = JSON.stringify(call.args);
    const half = Math.floor(args.length / 2);
    send([{ index: 0, delta: { tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: args.slice(0, half) } }] }, finish_reason: null }]);
    send([{ index: 0, delta: { tool_calls: [{ index, function: { arguments: args.slice(half) } }] }, finish_reason: null }]);
  });
  send([{ index: 0, delta: {}, finish_reason: completion.toolCalls.length > 0 ? "tool_calls" : "stop" }]);
  if (includeUsage) send([], { usage: usageOf(completion) });
  res.end("data: [DONE]\n\n");
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
