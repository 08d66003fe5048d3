// The storage scenario of the checkpointer bench and its test: one thread, 200 supersteps,
// each appending one 2 KB message to a MessagesDeltaValue (or plain MessagesValue) channel.
import { statSync } from "node:fs";
import { HumanMessage } from "@langchain/core/messages";
import { END, MessagesDeltaValue, MessagesValue, START, StateGraph, StateSchema, type BaseCheckpointSaver } from "@langchain/langgraph";

/** Steps in the thread, and characters per message. */
export const DELTA_STEPS = 200;
export const MESSAGE_CHARS = 2048;

/**
 * Deterministic content: uniformly random characters from 64 letters, digits and
 * punctuation (mulberry32 seeded by the step), so byte counts never vary and
 * compression gets no help beyond the 6-bit alphabet.
 */
export function messageText(step: number): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .";
  let seed = (step + 1) * 0x9e3779b9;
  let text = "";
  for (let i = 0; i < MESSAGE_CHARS; i++) {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    text += alphabet[((t ^ (t >>> 14)) >>> 0) % alphabet.length];
  }
  return text;
}

/** Runs the 200-step thread on `checkpointer`; returns the message bytes it added. */
export async function runMessageThread(checkpointer: BaseCheckpointSaver, options: { delta: boolean; threadId?: string }): Promise<number> {
  const State = new StateSchema({ messages: options.delta ? MessagesDeltaValue : MessagesValue });
  const graph = new StateGraph(State)
    .addNode("append", (state) => ({
      messages: [new HumanMessage({ id: `m${state.messages.length}`, content: messageText(state.messages.length) })],
    }))
    .addEdge(START, "append")
    .addConditionalEdges("append", (state) => (state.messages.length < DELTA_STEPS ? "append" : END))
    .compile({ checkpointer });
  const config = { configurable: { thread_id: options.threadId ?? "delta-thread" }, recursionLimit: DELTA_STEPS + 10 };
  const final = await graph.invoke({ messages: [] }, config);
  if (final.messages.length !== DELTA_STEPS) throw new Error(`expected ${DELTA_STEPS} messages, got ${final.messages.length}`);
  return DELTA_STEPS * MESSAGE_CHARS;
}

/** Bytes a SQLite database occupies on disk: the file plus its WAL, if any. */
export function databaseBytes(path: string): number {
  const size = (file: string) => {
    try {
      return statSync(file).size;
    } catch {
      return 0;
    }
  };
  return size(path) + size(`${path}-wal`);
}
