import { AIMessage, HumanMessage, isAIMessage, isToolMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { buildContext } from "agentrt/graph";
import { seededRandom } from "../helpers/seeded-random.js";

const NOT_PERFORMED = "not performed: the user sent a new message instead of answering its approval";

/** buildContext as first written (a set of every answered id, a copy at each step): the behaviour to keep. */
function referenceContext(messages: readonly BaseMessage[], instructions: string | undefined): BaseMessage[] {
  const resendable = (m: BaseMessage): BaseMessage => !isAIMessage(m) || !m.invalid_tool_calls?.length ? m : new AIMessage({
    content: m.content, id: m.id, usage_metadata: m.usage_metadata, response_metadata: m.response_metadata,
    tool_calls: [...(m.tool_calls ?? []), ...m.invalid_tool_calls.map((c) => ({ id: c.id, name: c.name ?? "unknown", args: {}, type: "tool_call" as const }))],
  });
  const thread = messages.filter((m) => m.getType() !== "system").map(resendable);
  const answered = new Set(thread.flatMap((m) => (isToolMessage(m) ? [m.tool_call_id] : [])));
  const out: BaseMessage[] = [];
  for (let i = 0; i < thread.length; i++) {
    const message = thread[i]!;
    out.push(message);
    const missing = isAIMessage(message) ? (message.tool_calls ?? []).filter((c) => c.id !== undefined && !answered.has(c.id)) : [];
    if (missing.length === 0) continue;
    while (i + 1 < thread.length && isToolMessage(thread[i + 1])) out.push(thread[++i]!);
    if (i + 1 >= thread.length) continue;
    for (const call of missing) out.push(new ToolMessage({ tool_call_id: call.id!, name: call.name, content: NOT_PERFORMED, status: "error" }));
  }
  return instructions ? [new SystemMessage(instructions), ...out] : out;
}

/** A message as the model sees it: kept messages by identity, made ones by what they say. */
const shape = (m: BaseMessage, input: readonly BaseMessage[]) => input.includes(m) ? m : {
  type: m.getType(), content: m.content, id: m.id ?? null,
  calls: isAIMessage(m) ? m.tool_calls?.map((c) => [c.id, c.name, c.args]) : null,
  result: isToolMessage(m) ? [m.tool_call_id, m.name, m.status] : null,
};


function randomThread(next: () => number): BaseMessage[] {
  const pick = (n: number) => Math.floor(next() * n);
  const id = () => `c${pick(8)}`;
  const thread: BaseMessage[] = [];
  for (let n = pick(14); n > 0; n--) {
    const kind = pick(6);
    if (kind === 0) thread.push(new HumanMessage(`h${n}`));
    else if (kind === 1) thread.push(new SystemMessage(`s${n}`));
    else if (kind === 2 || kind === 3) {
      const calls = Array.from({ length: pick(3) }, (_, i) => ({ id: pick(9) === 0 ? undefined : id(), name: `t${i}`, args: { n } }));
      const invalid = pick(4) === 0 ? [{ id: id(), name: "bad", args: "{", error: "json", type: "invalid_tool_call" as const }] : [];
      thread.push(new AIMessage({ content: `a${n}`, tool_calls: calls, invalid_tool_calls: invalid }));
    } else thread.push(new ToolMessage({ tool_call_id: id(), content: `r${n}` }));
  }
  return thread;
}

describe("buildContext", () => {
  it("gives the context the first implementation gave, on 2,000 random threads", () => {
    const next = seededRandom(21);
    for (let run = 0; run < 2000; run++) {
      const thread = randomThread(next);
      const instructions = next() < 0.5 ? "rules" : undefined;
      const expected = referenceContext(thread, instructions).map((m) => shape(m, thread));
      expect(buildContext(thread, instructions).map((m) => shape(m, thread)), `thread ${run}`).toEqual(expected);
    }
  });

  it("counts a call answered by a result further on, not right after it, as answered", () => {
    const asked = new AIMessage({ content: "", tool_calls: [{ id: "r", name: "rollback", args: {} }] });
    const thread = [new HumanMessage("roll back?"), asked, new HumanMessage("and?"), new ToolMessage({ tool_call_id: "r", content: "done" })];
    expect(buildContext(thread, undefined)).toEqual(thread);
  });

  it("never hands back the caller's array", () => {
    const thread = [new HumanMessage("hi")];
    const context = buildContext(thread, undefined);
    expect(context).not.toBe(thread);
    context.push(new HumanMessage("more"));
    expect(thread).toHaveLength(1);
  });
});
