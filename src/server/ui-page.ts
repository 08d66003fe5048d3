/**
 * The run viewer page at /ui: the run list (newest first, filter, search), and a run's page with its
 * conversation, forms for a waiting run, a cancel button, graph with the path taken, trace waterfall with each span's
 * detail, state timeline and the run's status changes,
 * kept current by the live feed (`/agentrt/events`). Plain HTML, CSS and JS (the parts in ./ui/), no
 * framework; Mermaid is served from /ui/assets (never a CDN) and fetched when a graph is first drawn. Data is set with textContent, never as HTML.
 * @module
 */
import { CLIENT_CONVERSATION } from "./ui/client-conversation.js";
import { CLIENT_CORE } from "./ui/client-core.js";
import { CLIENT_EVENTS } from "./ui/client-events.js";
import { CLIENT_GRAPH } from "./ui/client-graph.js";
import { CLIENT_LIST } from "./ui/client-list.js";
import { CLIENT_RUN } from "./ui/client-run.js";
import { CLIENT_SPAN } from "./ui/client-span.js";
import { CLIENT_STATE } from "./ui/client-state.js";
import { CLIENT_WATERFALL } from "./ui/client-waterfall.js";
import { VIEWER_CSS } from "./ui/style.js";

const STATUSES = ["QUEUED", "RUNNING", "WAITING_APPROVAL", "WAITING_INPUT", "RETRYING", "SUCCEEDED", "FAILED", "CANCELED", "EXPIRED"];

// An inline icon: no /favicon.ico request (a 404, or a 401 with a key, on every load).
const FAVICON = "data:image/svg+xml," + encodeURIComponent(
  "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><rect width='16' height='16' rx='3' fill='#4f46e5'/>" +
  "<path d='M3 11h3V5h4v6h3' stroke='#fff' stroke-width='1.6' fill='none'/></svg>");

const START = String.raw`
async function refreshAll() {
  try {
    await refreshRuns();
    if (ui.selected) await refreshDetail();
  } catch (error) { flash(error); }
}
$("status-filter").onchange = renderRuns;
$("search").oninput = renderRuns;
$("key-form").onsubmit = useKey;
$("state-raw-toggle").onclick = toggleRawState;
window.addEventListener("hashchange", () => {
  const id = new URLSearchParams(location.hash.slice(1)).get("run");
  if (id && id !== ui.selected) select(id);
});
ui.selected = new URLSearchParams(location.hash.slice(1)).get("run");
// Relative times and running durations age without any event.
setInterval(() => { renderRuns(); if (ui.detail && !["SUCCEEDED", "FAILED", "CANCELED", "EXPIRED"].includes(ui.detail.run.status)) renderDetail(); }, 5000);
startLive();
void refreshAll();
`;

/** The whole page. */
export const VIEWER_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>agentrt runs</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="${FAVICON}">
<style>${VIEWER_CSS}</style></head>
<body>
<header class="top"><b>agentrt</b><span class="sub">run viewer</span><span id="live">connecting…</span></header>
<aside>
  <div class="filters">
    <input id="search" type="search" placeholder="Search run id, graph, user…" aria-label="Search runs">
    <select id="status-filter" aria-label="Status"><option value="">All statuses</option>${STATUSES.map((s) => `<option>${s}</option>`).join("")}</select>
  </div>
  <div id="run-list"></div>
</aside>
<main>
  <div id="placeholder" class="placeholder"><div id="overview"></div></div>
  <div id="detail" hidden>
    <div class="card head-card"><div id="run-head"></div><div id="run-cancel" class="cancel"></div></div>
    <div id="run-error" class="card" hidden></div>
    <div id="actions"></div>
    <div id="result-card" class="card" hidden><h3>Result</h3><div id="run-result"></div></div>
    <div class="grid2">
      <div class="card"><h3>Conversation</h3><div id="conversation"></div></div>
      <div>
        <div class="card"><h3>Graph <small id="graph-note"></small></h3><div id="graph"></div>
          <div class="legend"><span><i style="background:#dcfce7;border:1px solid #16a34a"></i>went through</span><span><i style="background:#fef3c7;border:1px solid #d97706"></i>now at</span></div></div>
        <div class="card"><h3>State <small>by checkpoint</small></h3><div id="timeline"></div><div id="state-meta"></div>
          <div id="state-messages" class="messages"></div><div id="state-other" class="state-other"></div>
          <button id="state-raw-toggle" type="button" class="toggle" hidden>Show raw JSON</button><pre id="state-view" hidden></pre></div>
        <div class="card"><h3>Events <small>status changes</small></h3><ol id="events"></ol></div>
      </div>
    </div>
    <div class="card"><h3>Trace <small id="legend" class="legend"></small> <small>click a span for its input and output</small></h3><div id="trace"></div><div id="span-detail" hidden></div></div>
  </div>
</main>
<div id="error-banner" role="alert"></div>
<div id="key-needed" hidden><div class="box">
  <h2>This server needs an API key</h2>
  <p>It was started with <code>AGENTRT_API_KEY</code> set, so every call but this page needs a key.
  Paste one of its keys below (for <code>AGENTRT_API_KEY="alice:KEY"</code>, the part after the colon), or open
  <code>/ui?key=KEY</code> once. The key is kept in this tab only (sessionStorage) and sent as <code>x-api-key</code>.</p>
  <p id="key-refused" class="form-error" hidden>The key this tab had was refused: check it against the server's AGENTRT_API_KEY.</p>
  <form id="key-form"><input id="key-input" type="password" placeholder="API key" autocomplete="off"><button type="submit">Use key</button></form>
</div></div>
<script>${CLIENT_CORE}${CLIENT_LIST}${CLIENT_RUN}${CLIENT_CONVERSATION}${CLIENT_GRAPH}${CLIENT_STATE}${CLIENT_WATERFALL}${CLIENT_SPAN}${CLIENT_EVENTS}${START}</script>
</body></html>`;
