/**
 * Browser code of the trace waterfall: one row per span in tree order, bars coloured by kind, duration,
 * tokens and cost per row. Waits for approval or input are drawn collapsed to a fixed narrow slot, so a
 * run that waited an hour still shows its working steps at a readable width. A row opens its span (client-span.ts).
 * @module
 */

/** Browser script: the waterfall. */
export const CLIENT_WATERFALL = String.raw`
const WAIT_SLOT = 0.06; // share of the track each collapsed wait takes
const KIND_LABEL = { invoke_agent: "run", step: "graph step", model_call: "model call", tool_call: "tool call", approval_wait: "approval wait",
  input_wait: "input wait", retry: "retry", error_event: "error", state_change: "status change" };

function spanLabel(s) {
  switch (s.kind) {
    case "invoke_agent": return s.parentId === null ? "run " + (s.agent || s.graph || "") : "agent " + (s.agent || s.name);
    case "tool_call": return (s.tool || s.name.replace(/^execute_tool /, "")) + (s.attempt > 1 ? " (attempt " + s.attempt + ")" : "");
    case "model_call": return s.name.replace(/_/g, " ") + (s.model ? " · " + s.model : "");
    case "approval_wait": return "approval wait: " + s.name.replace(/^approval_wait ?/, "");
    case "input_wait": return "input wait";
    default: return s.name;
  }
}

/** Maps a time to a fraction of the track, with every wait squeezed into WAIT_SLOT. */
function timeAxis(spans, now) {
  const start = Math.min(...spans.map((s) => s.startMs));
  const end = Math.max(...spans.map((s) => s.endMs ?? now));
  const raw = spans.filter((s) => s.kind === "approval_wait" || s.kind === "input_wait")
    .map((s) => [s.startMs, s.endMs ?? now]).sort((a, b) => a[0] - b[0]);
  const waits = [];
  for (const w of raw) {
    const prev = waits[waits.length - 1];
    if (prev && w[0] <= prev[1]) prev[1] = Math.max(prev[1], w[1]); else waits.push([w[0], w[1]]);
  }
  const waiting = waits.reduce((t, w) => t + (w[1] - w[0]), 0);
  const working = Math.max(1, end - start - waiting);
  const workShare = 1 - WAIT_SLOT * waits.length;
  const at = (t) => {
    let x = 0, prev = start;
    for (const [ws, we] of waits) {
      if (t <= ws) break;
      x += ((ws - prev) / working) * workShare;
      if (t < we) return x + WAIT_SLOT * ((t - ws) / Math.max(1, we - ws));
      x += WAIT_SLOT;
      prev = we;
    }
    return Math.min(1, x + ((Math.max(t, prev) - prev) / working) * workShare);
  };
  return { at, waits };
}

/** Spans in tree order: each parent followed by its children by start time. */
function treeOrder(spans) {
  const children = new Map();
  for (const s of spans) {
    const list = children.get(s.parentId) || [];
    list.push(s);
    children.set(s.parentId, list);
  }
  const ids = new Set(spans.map((s) => s.spanId));
  const out = [];
  const walk = (parent, depth) => {
    for (const s of (children.get(parent) || []).sort((a, b) => a.startMs - b.startMs)) {
      out.push([s, depth]);
      walk(s.spanId, depth + 1);
    }
  };
  walk(null, 0);
  // Orphans (parent not recorded) still show, at the top level.
  for (const s of spans) if (s.parentId !== null && !ids.has(s.parentId)) { out.push([s, 0]); walk(s.spanId, 1); }
  return out;
}

function renderWaterfall(spans) {
  const box = $("trace");
  const shown = spans.filter((s) => s.kind !== "state_change");
  if (shown.length === 0) {
    box.replaceChildren(el("div", { className: "muted", textContent: "No spans recorded yet." }));
    renderSpanDetail();
    return;
  }
  const now = Date.now();
  const axis = timeAxis(spans, now);
  const marks = spans.filter((s) => s.kind === "state_change");
  const gapsFor = () => axis.waits.map(([ws, we]) => {
    const g = el("div", { className: "gap" });
    g.style.left = (axis.at(ws) * 100) + "%";
    g.style.width = ((axis.at(we) - axis.at(ws)) * 100) + "%";
    return g;
  });
  const head = el("div", { className: "row head" }, el("span", { textContent: "span" }), el("span", { textContent: "timeline (waits collapsed)" }),
    el("span", { className: "dur", textContent: "duration" }), el("span", { className: "tokens", textContent: "tokens" }), el("span", { className: "cost", textContent: "cost" }));
  const rows = treeOrder(shown).map(([s, depth]) => {
    const end = s.endMs ?? now;
    const isWait = s.kind === "approval_wait" || s.kind === "input_wait";
    const bar = el("div", { className: "bar kind-" + s.kind + (isWait ? " collapsed" : "") + (s.status === "error" ? " error" : "") + (s.endMs === null ? " running" : ""),
      title: KIND_LABEL[s.kind] + " · " + s.name + " · " + duration(end - s.startMs) + (s.error ? " · " + s.error : "") });
    bar.style.left = (axis.at(s.startMs) * 100) + "%";
    bar.style.width = Math.max(0, (axis.at(end) - axis.at(s.startMs)) * 100) + "%";
    const track = el("div", { className: "track" }, ...gapsFor(), bar);
    if (s.parentId === null) {
      for (const m of marks) {
        const mark = el("div", { className: "bar kind-state_change", title: m.name + (m.extra && m.extra.reason ? " · " + m.extra.reason : "") });
        mark.style.left = (axis.at(m.startMs) * 100) + "%";
        track.append(mark);
      }
    }
    const swatch = el("span", { className: "swatch" });
    swatch.style.background = "var(--k-" + s.kind + ")";
    const label = el("div", { className: "label", title: KIND_LABEL[s.kind] + ": " + s.name }, swatch, el("span", { textContent: spanLabel(s) }),
      s.error ? el("span", { className: "kind", textContent: "⚠" }) : null);
    label.style.paddingLeft = (depth * 14) + "px";
    const tokens = s.inputTokens === null && s.outputTokens === null ? "" : count((s.inputTokens || 0) + (s.outputTokens || 0));
    return el("div", { className: "row" + (s.spanId === ui.span ? " selected" : ""), title: s.error || "", dataset: { spanId: s.spanId },
      tabIndex: 0, role: "button", onclick: () => selectSpan(s.spanId), onkeydown: (e) => { if (e.key === "Enter") selectSpan(s.spanId); } }, label, track,
      el("span", { className: "dur", textContent: s.endMs === null ? duration(end - s.startMs) + "…" : duration(end - s.startMs) }),
      el("span", { className: "tokens", textContent: tokens, title: s.inputTokens === null ? "" : s.inputTokens + " in / " + s.outputTokens + " out" }),
      el("span", { className: "cost", textContent: money(s.costUsd) }));
  });
  box.replaceChildren(head, ...rows);
  renderSpanDetail();
  const kinds = [...new Set(spans.map((s) => s.kind))];
  $("legend").replaceChildren(...kinds.map((k) => {
    const i = el("i");
    i.style.background = "var(--k-" + k + ")";
    return el("span", {}, i, KIND_LABEL[k]);
  }));
}
`;
