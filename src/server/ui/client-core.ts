/**
 * Browser code shared by the viewer's parts: the API key (sessionStorage, from `?key=` or the key form),
 * JSON calls, element building (textContent only, never HTML from data), formatting of times, durations,
 * tokens and money, and the live feed read with fetch (EventSource cannot send the key header).
 * @module
 */

/** Browser script: core helpers; defines globals used by the other parts. */
export const CLIENT_CORE = String.raw`
const params = new URLSearchParams(location.search);
if (params.get("key")) {
  sessionStorage.setItem("agentrt-key", params.get("key"));
  // Keep the key out of the address bar, history and screenshots.
  history.replaceState(null, "", location.pathname + location.hash);
}
const ui = { key: sessionStorage.getItem("agentrt-key"), selected: null, runs: [], detail: null, checkpoint: null, span: null };

class KeyNeeded extends Error {}
async function api(path, body) {
  const headers = { "content-type": "application/json" };
  if (ui.key) headers["x-api-key"] = ui.key;
  const res = await fetch(path, body === undefined ? { headers } : { method: "POST", headers, body: JSON.stringify(body) });
  if (res.status === 401) { showKeyNeeded(); throw new KeyNeeded("API key needed"); }
  // A 202 or 204 (a cancel) has no body.
  const text = await res.text();
  const json = text ? JSON.parse(text) : null;
  if (!res.ok) { const e = new Error((json && json.message) || res.statusText); e.code = json && (json.code || json.error); throw e; }
  return json;
}
function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === "dataset") Object.assign(node.dataset, v);
    else if (k in node) node[k] = v;
    else node.setAttribute(k, v);
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) node.append(child);
  return node;
}
const $ = (id) => document.getElementById(id);

/** "12s ago", or "in 5m" for a time ahead (a wait's expiry). */
function ago(iso) {
  const diff = (Date.now() - Date.parse(iso)) / 1000;
  const s = Math.abs(diff);
  if (s < 5) return "just now";
  const text = s < 60 ? Math.floor(s) + "s" : s < 3600 ? Math.floor(s / 60) + "m" : s < 86400 ? Math.floor(s / 3600) + "h" : Math.floor(s / 86400) + "d";
  return diff < 0 ? "in " + text : text + " ago";
}
function duration(ms) {
  if (ms === null || ms === undefined || !isFinite(ms)) return "";
  if (ms < 1) return "<1 ms";
  if (ms < 1000) return Math.round(ms) + " ms";
  if (ms < 60000) return (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + " s";
  if (ms < 3600000) return Math.floor(ms / 60000) + "m " + Math.round((ms % 60000) / 1000) + "s";
  return Math.floor(ms / 3600000) + "h " + Math.round((ms % 3600000) / 60000) + "m";
}
function money(usd) {
  if (!usd) return "";
  return usd < 0.01 ? "$" + usd.toFixed(5) : "$" + usd.toFixed(2);
}
function count(n) { return n === null || n === undefined ? "" : n >= 10000 ? (n / 1000).toFixed(1) + "k" : String(n); }
function pretty(value) {
  if (typeof value === "string") {
    try { return JSON.stringify(JSON.parse(value), null, 2); } catch { return value; }
  }
  return JSON.stringify(value, null, 2);
}
function pill(status) { return el("span", { className: "pill " + status, textContent: status }); }
function flash(error) {
  if (error instanceof KeyNeeded) return;
  const box = $("error-banner");
  box.textContent = (error.code ? error.code + ": " : "") + (error.message || String(error));
  box.style.display = "block";
  clearTimeout(flash.timer);
  flash.timer = setTimeout(() => { box.style.display = "none"; }, 6000);
}

function showKeyNeeded() {
  const box = $("key-needed");
  if (!box.hidden) return;
  box.hidden = false;
  // A key was sent and refused: say so, rather than asking as if none had been given.
  $("key-refused").hidden = !ui.key;
  $("key-input").value = "";
  $("key-input").focus();
}
function useKey(event) {
  event.preventDefault();
  ui.key = $("key-input").value.trim();
  sessionStorage.setItem("agentrt-key", ui.key);
  $("key-needed").hidden = true;
  startLive();
  void refreshAll();
}

/** The live feed: "runs" events carry the runs whose status or usage moved. */
let liveAbort = null;
async function startLive() {
  if (liveAbort) liveAbort.abort();
  const abort = new AbortController();
  liveAbort = abort;
  const headers = ui.key ? { "x-api-key": ui.key } : {};
  try {
    const res = await fetch("/agentrt/events", { headers, signal: abort.signal });
    if (res.status === 401) { showKeyNeeded(); return; }
    if (!res.ok || !res.body) throw new Error("live feed: " + res.status);
    $("live").classList.add("on");
    $("live").textContent = "live";
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const event = /^event: (.*)$/m.exec(block);
        const data = block.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
        if (event && event[1] === "runs") onRunsChanged(JSON.parse(data));
      }
    }
  } catch (error) {
    if (abort.signal.aborted) return;
  }
  if (abort.signal.aborted) return;
  $("live").classList.remove("on");
  $("live").textContent = "reconnecting…";
  setTimeout(() => { if (liveAbort === abort) startLive(); }, 2000);
}
`;
