/**
 * Browser code of the run list: newest first, relative times (kept fresh), a status filter and a search
 * over run id, thread id, graph and user; live changes are merged in without a reload.
 * @module
 */

/** Browser script: the run list. */
export const CLIENT_LIST = String.raw`
async function refreshRuns() {
  ui.runs = await api("/agentrt/runs?limit=200");
  renderRuns();
}

function onRunsChanged(changed) {
  const byId = new Map(ui.runs.map((r) => [r.run_id, r]));
  for (const run of changed) byId.set(run.run_id, run);
  // Run ids are sortable by creation time (ULIDs): newest first.
  ui.runs = [...byId.values()].sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.run_id < b.run_id ? 1 : -1));
  renderRuns();
  if (ui.selected && changed.some((r) => r.run_id === ui.selected)) void refreshDetail();
}

function matches(run) {
  const status = $("status-filter").value;
  if (status && run.status !== status) return false;
  const q = $("search").value.trim().toLowerCase();
  if (!q) return true;
  return [run.run_id, run.thread_id, run.graph, run.user].some((f) => String(f).toLowerCase().includes(q));
}

function renderRuns() {
  renderOverview();
  const shown = ui.runs.filter(matches);
  const list = $("run-list");
  if (shown.length === 0) {
    list.replaceChildren(el("div", { className: "empty", textContent: ui.runs.length === 0
      ? "No runs yet. Start one with: agentrt run city_weather --message \"Weather for Beijing\" (same --db), or POST /runs/wait."
      : "No run matches the filter." }));
    return;
  }
  list.replaceChildren(...shown.map((run) => {
    const usage = [run.usage.tokens ? count(run.usage.tokens) + " tok" : "", money(run.usage.cost_usd)].filter(Boolean).join(" · ");
    return el("div", { className: "run" + (run.run_id === ui.selected ? " selected" : ""), dataset: { runId: run.run_id }, onclick: () => select(run.run_id) },
      el("span", { className: "graph", textContent: run.graph }),
      el("span", { className: "when", textContent: ago(run.created_at), title: run.created_at }),
      el("div", { className: "meta" }, pill(run.status), el("span", { className: "user", textContent: run.user }), el("span", { className: "usage", textContent: usage })),
      el("div", { className: "meta id", textContent: run.run_id }));
  }));
}

/** With no run open: how many runs are in each status, each a shortcut to the filtered list. */
function renderOverview() {
  const counts = new Map();
  for (const run of ui.runs) counts.set(run.status, (counts.get(run.status) || 0) + 1);
  const order = ["WAITING_APPROVAL", "WAITING_INPUT", "RUNNING", "QUEUED", "RETRYING", "FAILED", "SUCCEEDED", "CANCELED", "EXPIRED"];
  const tiles = order.filter((s) => counts.has(s)).map((s) => el("button", { type: "button", className: "tile", onclick: () => {
    $("status-filter").value = s;
    renderRuns();
  } }, el("b", { textContent: String(counts.get(s)) }), pill(s)));
  const waiting = (counts.get("WAITING_APPROVAL") || 0) + (counts.get("WAITING_INPUT") || 0);
  $("overview").replaceChildren(
    el("p", { textContent: ui.runs.length === 0 ? "No runs yet." : waiting ? waiting + " run(s) wait for you. Select a run on the left." : "Select a run on the left." }),
    el("div", { className: "tiles" }, ...tiles));
}

function select(runId) {
  if (ui.selected !== runId) { ui.detail = null; ui.checkpoint = null; ui.span = null; }
  ui.selected = runId;
  history.replaceState(null, "", "#run=" + runId);
  renderRuns();
  void refreshDetail();
}
`;
