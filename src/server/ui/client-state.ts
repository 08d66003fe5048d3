/**
 * Browser code of the state panel: the checkpoint picked on the timeline, the messages it added drawn as the
 * conversation draws them (earlier ones folded), its other channels as short values, the raw JSON behind a toggle.
 * @module
 */

/** Browser script: the state panel. */
export const CLIENT_STATE = String.raw`
let showRawState = false;

const messagesOf = (cp) => (cp && cp.values && Array.isArray(cp.values.messages) ? cp.values.messages : []);

/**
 * A checkpoint's values (null: none) in the state panel, after previous (the checkpoint before it, if any):
 * the messages it added drawn out, the ones it had already folded, so stepping through the ticks shows each step's change.
 */
function renderState(cp, previous) {
  const values = cp && cp.values && typeof cp.values === "object" ? cp.values : {};
  const messages = messagesOf(cp);
  const before = new Set(messagesOf(previous).map((m) => m.id));
  const earlier = messages.filter((m) => m.id && before.has(m.id));
  const added = messages.filter((m) => !earlier.includes(m));
  // replaceChildren would write a null as the text "null": the parts left out are filtered away.
  $("state-messages").replaceChildren(...[
    earlier.length ? el("details", { className: "earlier" }, el("summary", { textContent: earlier.length + " earlier message" + (earlier.length === 1 ? "" : "s") }),
      el("div", { className: "messages" }, ...earlier.map(messageNode))) : null,
    added.length ? el("div", { className: "note", textContent: "added at this checkpoint:" }) : null,
    ...added.map(messageNode)].filter(Boolean));
  // Other channels: short values in one list, longer ones folded under their key.
  const others = Object.entries(values).filter(([key]) => key !== "messages");
  const short = others.filter(([, v]) => v === null || v === undefined || typeof v !== "object" && String(v).length <= 80);
  const long = others.filter((entry) => !short.includes(entry));
  $("state-other").replaceChildren(...[
    short.length ? el("dl", { className: "facts" }, ...short.flatMap(([k, v]) => [el("dt", { textContent: k }), el("dd", { textContent: v === undefined ? "undefined" : JSON.stringify(v) })])) : null,
    ...long.map(([key, value]) => el("details", {},
      el("summary", { textContent: key + (Array.isArray(value) ? " · " + value.length + " item" + (value.length === 1 ? "" : "s") : "") }),
      el("pre", { textContent: typeof value === "string" ? value : JSON.stringify(value, null, 2) })))].filter(Boolean));
  const toggle = $("state-raw-toggle");
  toggle.hidden = cp === null;
  toggle.textContent = showRawState ? "Hide raw JSON" : "Show raw JSON";
  const raw = $("state-view");
  raw.hidden = !showRawState;
  raw.textContent = cp === null ? "" : JSON.stringify(cp.values, null, 2);
}

function toggleRawState() {
  showRawState = !showRawState;
  if (ui.detail) renderTimeline(ui.detail.history);
}
`;
