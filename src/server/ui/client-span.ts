/**
 * Browser code of a span's detail, opened by clicking its trace row: what it did and with what, as a run
 * view of LangSmith shows it. A model call shows its prompt (the messages before its reply) and completion
 * (the reply it added to the state); a tool call its arguments (as recorded, redacted), its result (the tool
 * message answering its call id) and error; every span its timing, status and recorded attributes.
 * @module
 */

/** Browser script: the span detail panel. */
export const CLIENT_SPAN = String.raw`
function selectSpan(spanId) {
  ui.span = ui.span === spanId ? null : spanId;
  for (const row of document.querySelectorAll("#trace .row[data-span-id]")) row.classList.toggle("selected", row.dataset.spanId === ui.span);
  renderSpanDetail();
  if (ui.span) $("span-detail").scrollIntoView({ block: "nearest" });
}

/** The run's newest messages, and which AI replies this run added (those its model calls made, in order). */
function runMessages(history) {
  const last = history[history.length - 1];
  const messages = last && last.values && Array.isArray(last.values.messages) ? last.values.messages : [];
  const first = history[0];
  const before = new Set((first && first.values && Array.isArray(first.values.messages) ? first.values.messages : []).map((m) => m.id));
  return { messages, replies: messages.filter((m) => m.type === "ai" && !before.has(m.id)) };
}

function section(title, ...children) {
  return [el("h5", { textContent: title }), ...children];
}

/** Prompt and completion of a model call: its reply is the n-th this run added, n its place among the run's model calls. */
function modelSections(s, spans, history) {
  const root = spans.find((x) => x.parentId === null);
  if (s.agent && root && root.agent && s.agent !== root.agent) return section("Messages", el("div", { className: "muted", textContent: "A sub-agent's messages are kept in its own state, not this run's." }));
  const calls = spans.filter((x) => x.kind === "model_call" && x.status !== "error" && (!x.agent || !root || !root.agent || x.agent === root.agent)).sort((a, b) => a.startMs - b.startMs);
  const { messages, replies } = runMessages(history);
  const reply = replies[calls.indexOf(s)];
  if (!reply) return section("Completion", el("div", { className: "muted", textContent: s.status === "error" ? "No reply: the call failed." : "Its reply is not in the run's state (yet)." }));
  const prompt = messages.slice(0, messages.indexOf(reply));
  const shown = prompt.slice(-6);
  return [
    ...section("Prompt · " + prompt.length + " message" + (prompt.length === 1 ? "" : "s") + (shown.length < prompt.length ? " (last " + shown.length + " shown)" : ""),
      el("div", { className: "messages span-prompt" }, ...shown.map(messageNode))),
    ...section("Completion", el("div", { className: "messages span-completion" }, messageNode(reply))),
  ];
}

/** Arguments and result of a tool call; the result is the tool message that answered its call id. */
function toolSections(s, history) {
  const { messages } = runMessages(history);
  const answer = s.toolCallId ? messages.find((m) => m.type === "tool" && m.tool_call_id === s.toolCallId) : undefined;
  let result = answer ? textOf(answer.content) : undefined;
  try { result = result === undefined ? undefined : JSON.parse(result); } catch { /* plain text */ }
  // agentrt's envelope: its status and its data or error are what the tool answered.
  const envelope = result && typeof result === "object" && "status" in result && ("data" in result || "error" in result) ? result : null;
  if (envelope) result = "data" in envelope ? envelope.data : envelope.error;
  const extra = s.extra || {};
  return [
    ...section("Arguments" + (extra.edited_by ? " (edited by " + extra.edited_by + ")" : ""), el("pre", { className: "span-args", textContent: pretty(s.args === null || s.args === undefined ? {} : s.args) })),
    ...(extra.original_args ? section("Arguments as the model asked", el("pre", { textContent: pretty(extra.original_args) })) : []),
    ...section(envelope ? "Result · " + envelope.status : "Result", result === undefined
      ? el("div", { className: "muted", textContent: s.status === "running" ? "Not answered yet." : "No result in the run's state." })
      : el("pre", { className: "span-result", textContent: pretty(result) })),
  ];
}

function spanFacts(s, spans) {
  const root = spans.find((x) => x.parentId === null);
  const rows = [
    ["kind", KIND_LABEL[s.kind] || s.kind], ["status", s.status],
    ["started", root ? "+" + duration(s.startMs - root.startMs) + " into the run" : new Date(s.startMs).toISOString()],
    ["duration", s.endMs === null ? duration(Date.now() - s.startMs) + " so far" : duration(s.endMs - s.startMs)],
    ["model", s.model], ["tokens", s.inputTokens === null ? null : s.inputTokens + " in / " + s.outputTokens + " out"], ["cost", money(s.costUsd)],
    ["tool", s.tool], ["tool call id", s.toolCallId], ["attempt", s.attempt], ["idempotency key", s.idempotencyKey],
    ["external operation", s.externalOperationId], ["result size", s.resultSize === null ? null : s.resultSize + " chars"], ["agent", s.agent],
    ...Object.entries(s.extra || {}).filter(([k]) => k !== "original_args" && k !== "edited_by").map(([k, v]) => [k, String(v)]),
  ].filter(([, v]) => v !== null && v !== undefined && v !== "");
  return el("dl", { className: "facts" }, ...rows.flatMap(([k, v]) => [el("dt", { textContent: k }), el("dd", { textContent: String(v) })]));
}

function renderSpanDetail() {
  const box = $("span-detail");
  const spans = ui.detail ? ui.detail.spans : [];
  const s = spans.find((x) => x.spanId === ui.span);
  box.hidden = !s;
  if (!s) { box.replaceChildren(); return; }
  const history = ui.detail.history;
  const body = s.kind === "model_call" ? modelSections(s, spans, history)
    : s.kind === "tool_call" || s.kind === "retry" ? toolSections(s, history) : [];
  box.replaceChildren(
    el("h4", {}, el("span", { textContent: spanLabel(s) }), el("span", { className: "pill " + (s.status === "error" ? "FAILED" : s.status === "running" ? "RUNNING" : "SUCCEEDED"), textContent: s.status }),
      el("button", { type: "button", className: "close", textContent: "Close", onclick: () => selectSpan(s.spanId) })),
    spanFacts(s, spans),
    ...(s.error ? section("Error", el("div", { className: "span-error", textContent: s.error })) : []),
    ...body);
}
`;
