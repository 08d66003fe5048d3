/**
 * The run viewer page: runs with their status, a run's graph drawn by the
 * locally served Mermaid, its trace as a waterfall (parallel tool calls side
 * by side), and pending approvals with approve/reject buttons. Data is set
 * with textContent only, never as HTML.
 * @module
 */

const STYLE = `
body { font: 14px system-ui, sans-serif; margin: 0; display: flex; height: 100vh; color: #222; }
#runs { width: 340px; overflow: auto; border-right: 1px solid #ddd; }
#runs h1 { font-size: 16px; margin: 12px; }
.run { padding: 6px 12px; cursor: pointer; border-bottom: 1px solid #f0f0f0; }
.run:hover, .run.selected { background: #eef4ff; }
.run small { color: #777; display: block; }
.status { font-weight: 600; }
.status.SUCCEEDED { color: #137333; } .status.FAILED, .status.EXPIRED { color: #c5221f; }
.status.WAITING_APPROVAL { color: #b06000; } .status.RUNNING, .status.QUEUED { color: #1a73e8; }
#detail { flex: 1; overflow: auto; padding: 12px 20px; }
.approval { border: 1px solid #f0c36d; background: #fff8e5; padding: 8px; margin: 8px 0; }
.approval code { display: block; margin: 4px 0; white-space: pre-wrap; }
button { margin-right: 8px; }
.row { display: flex; align-items: center; height: 22px; }
.row .label { width: 260px; overflow: hidden; white-space: nowrap; text-overflow: ellipsis; font-size: 12px; }
.row .track { flex: 1; position: relative; height: 14px; background: #fafafa; }
.bar { position: absolute; height: 14px; min-width: 2px; background: #8ab4f8; }
.bar.tool { background: #81c995; } .bar.model { background: #c58af9; } .bar.error { background: #f28b82; }
#error { color: #c5221f; }
`;

const SCRIPT = `
const params = new URLSearchParams(location.search);
if (params.get("key")) sessionStorage.setItem("agentrt-key", params.get("key"));
const key = sessionStorage.getItem("agentrt-key");
let selected = new URLSearchParams(location.hash.slice(1)).get("run");
let drawnGraph = null;
mermaid.initialize({ startOnLoad: false, securityLevel: "strict" });

async function api(path, body) {
  const headers = { "content-type": "application/json" };
  if (key) headers["x-api-key"] = key;
  const res = await fetch(path, body === undefined ? { headers } : { method: "POST", headers, body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(json.message || res.statusText);
  return json;
}
function el(tag, props, ...children) {
  const node = Object.assign(document.createElement(tag), props || {});
  for (const child of children) node.append(child);
  return node;
}
function showError(error) { document.getElementById("error").textContent = error ? String(error.message || error) : ""; }

async function refreshRuns() {
  const runs = await api("/agentrt/runs?limit=100");
  const list = document.getElementById("run-list");
  list.replaceChildren(...runs.slice().reverse().map((run) => {
    const item = el("div", { className: "run" + (run.run_id === selected ? " selected" : ""), onclick: () => select(run.run_id) },
      el("span", { className: "status " + run.status, textContent: run.status }), " " + run.graph,
      el("small", { textContent: run.run_id + " · " + run.created_at }));
    item.dataset.runId = run.run_id;
    return item;
  }));
}

function select(runId) {
  selected = runId;
  drawnGraph = null;
  location.hash = "run=" + runId;
  void refresh();
}

async function decide(runId, action, kind) {
  showError(null);
  try {
    await api("/agentrt/runs/" + runId + "/" + kind, { action_id: action.action_id, args_hash: action.args_hash });
  } catch (error) { showError(error); }
  await refresh();
}

let approvalsKey = "";
function renderApprovals(run, approvals) {
  // Re-rendering unchanged buttons every second would swap them out from under a click.
  const nextKey = run.run_id + JSON.stringify(approvals);
  if (nextKey === approvalsKey) return;
  approvalsKey = nextKey;
  const box = document.getElementById("approvals");
  box.replaceChildren(...approvals.map((a) => el("div", { className: "approval" },
    el("b", { textContent: "Approval needed: " + a.tool }), el("code", { textContent: JSON.stringify(a.args, null, 2) }),
    el("small", { textContent: (a.reason || "") + " · args_hash " + a.args_hash }), el("br"),
    el("button", { textContent: "Approve", className: "approve", onclick: () => decide(run.run_id, a, "approve") }),
    el("button", { textContent: "Reject", className: "reject", onclick: () => decide(run.run_id, a, "reject") }))));
}

function renderTrace(spans) {
  const box = document.getElementById("trace");
  if (spans.length === 0) { box.replaceChildren(el("i", { textContent: "no spans yet" })); return; }
  const now = Date.now();
  const start = Math.min(...spans.map((s) => s.startMs));
  const end = Math.max(...spans.map((s) => s.endMs ?? now));
  const total = Math.max(1, end - start);
  const depth = new Map();
  for (const s of spans) depth.set(s.spanId, s.parentId === null ? 0 : (depth.get(s.parentId) ?? 0) + 1);
  box.replaceChildren(...spans.map((s) => {
    const left = ((s.startMs - start) / total) * 100;
    const width = (((s.endMs ?? now) - s.startMs) / total) * 100;
    const bar = el("div", { className: "bar " + s.kind + (s.status === "error" ? " error" : ""), title: s.name + " " + Math.round((s.endMs ?? now) - s.startMs) + " ms" });
    bar.style.left = left + "%";
    bar.style.width = width + "%";
    const label = el("div", { className: "label", textContent: "\\u00a0".repeat(2 * (depth.get(s.spanId) ?? 0)) + s.kind + " " + s.name });
    return el("div", { className: "row" }, label, el("div", { className: "track" }, bar));
  }));
}

async function renderGraph(runId) {
  if (drawnGraph === runId) return;
  const { mermaid: text } = await api("/agentrt/runs/" + runId + "/graph");
  const { svg } = await mermaid.render("g" + Math.random().toString(36).slice(2), text);
  document.getElementById("graph").innerHTML = svg;
  drawnGraph = runId;
}

async function refresh() {
  try {
    await refreshRuns();
    if (!selected) return;
    const [run, approvals, spans] = await Promise.all([
      api("/agentrt/runs/" + selected), api("/agentrt/runs/" + selected + "/approvals"), api("/agentrt/runs/" + selected + "/trace"),
    ]);
    document.getElementById("run-title").textContent = run.graph + " · " + run.run_id;
    const status = document.getElementById("run-status");
    status.textContent = run.status;
    status.className = "status " + run.status;
    document.getElementById("run-result").textContent = run.error ? run.error.code + ": " + run.error.message
      : typeof run.result === "string" ? run.result : "";
    renderApprovals(run, approvals);
    renderTrace(spans);
    await renderGraph(run.run_id);
  } catch (error) { showError(error); }
}

void refresh();
setInterval(() => void refresh(), 1000);
`;

/** The whole page; Mermaid comes from /ui/assets, never a CDN. */
export const VIEWER_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>agentrt runs</title><style>${STYLE}</style>
<script src="/ui/assets/mermaid.min.js"></script></head>
<body>
<div id="runs"><h1>agentrt runs</h1><div id="run-list"></div></div>
<div id="detail">
  <h2 id="run-title">select a run</h2>
  <div>status: <span id="run-status" class="status"></span></div>
  <p id="run-result"></p>
  <div id="error"></div>
  <div id="approvals"></div>
  <h3>Graph</h3><div id="graph"></div>
  <h3>Trace</h3><div id="trace"></div>
</div>
<script>${SCRIPT}</script>
</body></html>`;
