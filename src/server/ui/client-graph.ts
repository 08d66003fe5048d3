/**
 * Browser code of the graph and the state timeline: the run's graph drawn by the locally served Mermaid
 * with the nodes it went through and the node it is at now highlighted (from its checkpoints' `next`),
 * and one tick per checkpoint to step through the state as it was.
 * @module
 */

/** Browser script: the graph drawing and the checkpoint timeline. */
export const CLIENT_GRAPH = String.raw`
// Mermaid (3 MB) is fetched only when a graph is first drawn, so the list shows without it.
let mermaidReady = null;
function loadMermaid() {
  mermaidReady ??= new Promise((resolve, reject) => {
    const script = el("script", { src: "/ui/assets/mermaid.min.js" });
    script.onload = () => {
      window.mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: "neutral", flowchart: { htmlLabels: false } });
      resolve(window.mermaid);
    };
    script.onerror = () => { mermaidReady = null; reject(new Error("could not load /ui/assets/mermaid.min.js")); };
    document.head.append(script);
  });
  return mermaidReady;
}
const graphSvgs = new Map(); // run id -> svg text; a graph can change between versions, a run's cannot
let drawnFor = null;

async function renderGraph(run, history) {
  const box = $("graph");
  try {
    if (drawnFor !== run.run_id) {
      let svg = graphSvgs.get(run.run_id);
      if (svg === undefined) {
        const { mermaid: text } = await api("/agentrt/runs/" + run.run_id + "/graph");
        // LangGraph's classDefs colour every node with !important inline fills, which would hide the path.
        const plain = text.split("\n").filter((line) => !/^\s*classDef /.test(line)).join("\n").replace(/:::(first|last)/g, "");
        const mermaid = await loadMermaid();
        svg = (await mermaid.render("g" + Math.random().toString(36).slice(2), plain)).svg;
        graphSvgs.set(run.run_id, svg);
      }
      if (ui.selected !== run.run_id) return;
      box.innerHTML = svg; // Mermaid's own output (securityLevel strict); run data never goes through innerHTML
      drawnFor = run.run_id;
    }
  } catch (error) {
    box.replaceChildren(el("div", { className: "muted", textContent: "Graph unavailable: " + (error.message || error) }));
    drawnFor = null;
    return;
  }
  const resting = ["SUCCEEDED", "FAILED", "CANCELED", "EXPIRED"].includes(run.status);
  const visited = new Set(["__start__"]);
  history.forEach((cp, i) => { if (i < history.length - 1 || resting) for (const n of cp.next || []) visited.add(n); });
  const last = history[history.length - 1];
  const active = new Set(resting || !last ? [] : last.next || []);
  if (run.status === "SUCCEEDED") visited.add("__end__");
  for (const node of box.querySelectorAll("g.node")) {
    // Mermaid ids nodes "<svg id>-flowchart-<name>-<n>" (some versions also set data-id).
    const match = /flowchart-(.+)-\d+$/.exec(node.id);
    const name = node.dataset.id || (match ? match[1] : "");
    node.classList.toggle("visited", visited.has(name) && !active.has(name));
    node.classList.toggle("active", active.has(name));
  }
  // Edges taken: from each checkpoint's next nodes to the following checkpoint's.
  const taken = new Set();
  const steps = [["__start__"], ...history.map((cp) => cp.next || []).filter((n) => n.length > 0)];
  if (run.status === "SUCCEEDED") steps.push(["__end__"]);
  for (let i = 0; i + 1 < steps.length; i++) for (const a of steps[i]) for (const b of steps[i + 1]) taken.add(a + " " + b);
  for (const edge of box.querySelectorAll("path[id]")) {
    const on = [...taken].some((pair) => {
      const [a, b] = pair.split(" ");
      return edge.id.includes("L_" + a + "_" + b + "_") || edge.id.includes("L-" + a + "-" + b + "-");
    });
    edge.classList.toggle("taken", on);
  }
  $("graph-note").textContent = active.size ? "now at: " + [...active].join(", ") : resting ? "finished" : "";
}

function checkpointLabel(cp) {
  const step = cp.metadata ? cp.metadata.step : undefined;
  return step === -1 ? "input" : step === undefined ? "?" : String(step);
}

function renderTimeline(history) {
  const box = $("timeline");
  if (history.length === 0) {
    box.replaceChildren(el("span", { className: "note", textContent: "No checkpoints." }));
    $("state-meta").textContent = "";
    renderState(null);
    return;
  }
  const ids = history.map((cp) => cp.checkpoint.checkpoint_id);
  if (ui.checkpoint && !ids.includes(ui.checkpoint)) ui.checkpoint = null;
  const current = ui.checkpoint || ids[ids.length - 1];
  box.replaceChildren(...history.map((cp) => {
    const id = cp.checkpoint.checkpoint_id;
    return el("button", { type: "button", className: "tick" + (id === current ? " on" : ""), textContent: checkpointLabel(cp),
      title: "step " + checkpointLabel(cp) + " · next: " + ((cp.next || []).join(", ") || "—") + " · " + cp.created_at,
      onclick: () => {
        // Picking the newest follows the run again as it moves.
        ui.checkpoint = id === ids[ids.length - 1] ? null : id;
        renderTimeline(ui.detail.history);
      } });
  }));
  const cp = history[ids.indexOf(current)];
  const source = cp.metadata && cp.metadata.source ? cp.metadata.source : "";
  $("state-meta").textContent = "checkpoint " + (ids.indexOf(current) + 1) + " of " + ids.length + " · step " + checkpointLabel(cp) +
    (source ? " · " + source : "") + " · next: " + ((cp.next || []).join(", ") || "—") + " · " + ago(cp.created_at) + (ui.checkpoint ? "" : " (latest, follows the run)");
  renderState(cp, history[ids.indexOf(current) - 1]);
}
`;
