/**
 * Context building under a token budget: large tool results are cut in the
 * prompt (the full text goes to the run's workspace, referenced by path) and,
 * when the history is still too long, the oldest turns are trimmed. The
 * instructions and the first user request always stay.
 * @module
 */
import { ToolMessage, isAIMessage, isToolMessage, trimMessages, type BaseMessage } from "@langchain/core/messages";
import { Workspace } from "../workspace/workspace.js";

/** Options of {@link fitContext} (`defineAgent({ context })`). */
export interface ContextOptions {
  /** Most prompt tokens per model call (estimated at ~4 characters per token). */
  maxTokens: number;
  /** Tool results longer than this are cut in the prompt. @default 4000 */
  maxToolResultChars?: number;
  /** Root of the per-run workspaces the full results are written to. @default ".agentrt/workspaces" */
  workspaceRoot?: string;
}

/** What {@link fitContext} cut, for the trace. */
export interface ContextTrim {
  /** Messages dropped from the start of the history. */
  droppedMessages: number;
  droppedTokens: number;
  /** Tool results shortened, with the workspace files holding them in full. */
  truncatedResults: number;
  truncatedTokens: number;
  files: string[];
  /** Estimated tokens of the context sent. */
  keptTokens: number;
}

const DEFAULT_MAX_RESULT_CHARS = 4000;

const contentText = (m: BaseMessage): string => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));

function messageChars(m: BaseMessage): number {
  const text = contentText(m);
  const calls = isAIMessage(m) && m.tool_calls?.length ? JSON.stringify(m.tool_calls).length : 0;
  return text.length + calls + 16;
}

/** Estimated prompt tokens of `messages` (~4 characters per token, plus a little per message). */
export function estimateTokens(messages: readonly BaseMessage[]): number {
  return Math.ceil(messages.reduce((sum, m) => sum + messageChars(m), 0) / 4);
}

async function truncateResult(m: ToolMessage, max: number, workspace: Workspace): Promise<{ message: ToolMessage; file: string; cut: number }> {
  const content = contentText(m);
  const file = `context/tool-results/${m.tool_call_id.replace(/[^\w.-]/g, "_")}.txt`;
  // Same call id, same content: rewriting on a resume is harmless.
  await workspace.write(file, content);
  const note = `\n…[truncated: ${content.length - max} of ${content.length} characters cut; full result in workspace file ${file}]`;
  const message = new ToolMessage({
    content: content.slice(0, max) + note, tool_call_id: m.tool_call_id, name: m.name, status: m.status, id: m.id, metadata: m.metadata,
  });
  return { message, file, cut: Math.ceil((content.length - max) / 4) };
}

/**
 * Fits `context` (instructions first, then the thread) into the budget.
 * Trimming keeps a suffix that starts on an AI or human message, so an AI
 * message's tool calls are never separated from their results.
 */
export async function fitContext(context: readonly BaseMessage[], options: ContextOptions, runId: string): Promise<{ messages: BaseMessage[]; trim: ContextTrim }> {
  const max = options.maxToolResultChars ?? DEFAULT_MAX_RESULT_CHARS;
  const trim: ContextTrim = { droppedMessages: 0, droppedTokens: 0, truncatedResults: 0, truncatedTokens: 0, files: [], keptTokens: 0 };
  let workspace: Workspace | undefined;
  const shortened: BaseMessage[] = [];
  for (const m of context) {
    if (isToolMessage(m) && contentText(m).length > max) {
      workspace ??= Workspace.forRun(options.workspaceRoot ?? ".agentrt/workspaces", runId);
      const cut = await truncateResult(m, max, workspace);
      shortened.push(cut.message);
      trim.truncatedResults++;
      trim.truncatedTokens += cut.cut;
      trim.files.push(cut.file);
    } else shortened.push(m);
  }
  const firstHuman = shortened.findIndex((m) => m.getType() === "human");
  const head = shortened.slice(0, firstHuman + 1);
  const rest = shortened.slice(firstHuman + 1);
  const budget = Math.max(0, options.maxTokens - estimateTokens(head));
  const kept = estimateTokens(rest) <= budget ? rest : await trimMessages(rest, {
    maxTokens: budget, strategy: "last", tokenCounter: (ms) => estimateTokens(ms), startOn: ["ai", "human"], allowPartial: false,
  });
  trim.droppedMessages = rest.length - kept.length;
  trim.droppedTokens = estimateTokens(rest) - estimateTokens(kept);
  const messages = [...head, ...kept];
  trim.keptTokens = estimateTokens(messages);
  return { messages, trim };
}
