/**
 * Browser code of the conversation: the run's messages in order (user, model with its tool calls, tool
 * results folded), with the approvals it asked for and how they were decided, and the questions it asked,
 * placed where they happened (taken from the checkpoints' interrupts); an open question is left to its form.
 * @module
 */

/** Browser script: the conversation panel. */
export const CLIENT_CONVERSATION = String.raw`
function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === "string" ? p : p.text || "")).join("");
  return content === null || content === undefined ? "" : JSON.stringify(content);
}

/** A tool message: agentrt's envelope (status, data or error) when present, else the raw content. */
function toolMessage(m) {
  let env = null;
  try { env = JSON.parse(textOf(m.content)); } catch { env = null; }
  const status = env && env.status ? env.status : "done";
  const failed = status !== "done";
  const body = env && "data" in env ? env.data : env && env.error ? env.error : textOf(m.content);
  const preview = typeof body === "string" ? body : JSON.stringify(body);
  const headline = failed && env && env.error ? status + " · " + (env.error.code ? env.error.code + ": " : "") + (env.error.message || "")
    : status + " · " + (preview.length > 90 ? preview.slice(0, 90) + "…" : preview);
  return el("div", { className: "msg tool" + (failed ? " error" : "") },
    el("div", { className: "who", textContent: "tool · " + (m.name || (env && env.tool) || "") }),
    el("details", {}, el("summary", { textContent: headline }), el("pre", { textContent: pretty(body) })));
}

/** One message as the conversation shows it (the state panel shows a checkpoint's messages the same way). */
function messageNode(m) {
  if (m.type === "tool") return toolMessage(m);
  const who = m.type === "human" ? "user" : m.type === "ai" ? "model" : m.type;
  const calls = (m.tool_calls || []).map((c) => el("span", { className: "tool-call", textContent: "→ " + c.name + " " + JSON.stringify(c.args) }));
  return el("div", { className: "msg " + m.type }, el("div", { className: "who", textContent: who }), textOf(m.content), ...calls);
}

function renderConversation(run, spans, history) {
  const last = history[history.length - 1];
  const messages = last && last.values && Array.isArray(last.values.messages) ? last.values.messages : [];
  // Where each interrupt happened: after the message count of the checkpoint that asked.
  const asks = [];
  for (const cp of history) {
    for (const task of cp.tasks || []) {
      for (const it of task.interrupts || []) {
        if (asks.some((a) => a.id === it.id)) continue;
        const at = cp.values && Array.isArray(cp.values.messages) ? cp.values.messages.length : 0;
        asks.push({ id: it.id, at, value: it.value || {} });
      }
    }
  }
  const waits = spans.filter((s) => s.kind === "approval_wait" || s.kind === "input_wait");
  const results = new Map(messages.filter((m) => m.type === "tool").map((m) => [m.tool_call_id, m]));
  const nodes = [];
  const chipsAt = (index) => {
    for (const ask of asks.filter((a) => a.at === index)) {
      const v = ask.value;
      if (v.action_id) {
        const result = results.get(v.tool_call_id);
        let env = null;
        try { env = result ? JSON.parse(textOf(result.content)) : null; } catch { env = null; }
        const wait = waits.find((w) => w.kind === "approval_wait" && w.name.endsWith(" " + v.tool) && w.endMs !== null);
        const took = wait ? " after " + duration(wait.endMs - wait.startMs) : "";
        const text = !result ? "waiting for approval: " + v.tool
          : env && env.status === "rejected" ? "✗ " + v.tool + " " + (env.error ? env.error.message : "rejected") + took
          : "✓ " + v.tool + " approved" + took;
        nodes.push(el("div", { className: "decision" + (env && env.status === "rejected" ? " rejected" : ""), textContent: text }));
      } else if (!run.input_requests.some((r) => r.interrupt_id === ask.id)) {
        // A question still open is the form above, where it is answered: shown here too, it read as asked twice.
        nodes.push(el("div", { className: "decision question", textContent: "The run asked: " + (v.question || JSON.stringify(v)) }));
      }
    }
  };
  messages.forEach((m, i) => {
    nodes.push(messageNode(m));
    chipsAt(i + 1);
  });
  if (messages.length === 0) {
    chipsAt(0);
    if (run.input_requests.length === 0) nodes.push(el("div", { className: "msg system", textContent: "No messages in this run's state." }));
  }
  $("conversation").replaceChildren(...nodes);
}
`;
