/**
 * Browser code of a run's history and its cancel button: the run's status changes (run_events) with their
 * times, who made each and why, as Temporal's event history lists them; and a cancel for an unfinished run,
 * sent to the HTTP API's cancel route so the same people may cancel here as there (its owner, an admin, or an
 * approver of every pending action when keys are set).
 * @module
 */

/** Browser script: the events list and the cancel button. */
export const CLIENT_EVENTS = String.raw`
function clock(ms) {
  const d = new Date(ms);
  const pad = (n, w = 2) => String(n).padStart(w, "0");
  return pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds()) + "." + pad(d.getMilliseconds(), 3);
}

function renderEvents(events) {
  const box = $("events");
  if (!events.length) { box.replaceChildren(el("li", { className: "muted", textContent: "No status changes recorded." })); return; }
  const start = Date.parse(events[0].at);
  box.replaceChildren(...events.map((e) => {
    const at = Date.parse(e.at);
    return el("li", { dataset: { from: e.from || "", to: e.to } },
      el("span", { className: "at", textContent: clock(at), title: e.at + (at > start ? " · +" + duration(at - start) : "") }),
      el("span", { className: "move" }, e.from ? pill(e.from) : el("span", { className: "muted", textContent: "created" }), "→", pill(e.to),
        e.actor ? el("span", { className: "who", textContent: "by " + e.actor }) : null),
      e.reason || e.error_code ? el("span", { className: "why", textContent: [e.error_code, e.reason].filter(Boolean).join(": ") }) : null);
  }));
}

let cancelKey = "";
function renderCancel(run) {
  const finished = ["SUCCEEDED", "FAILED", "CANCELED", "EXPIRED"].includes(run.status);
  const key = run.run_id + (finished ? "done" : "open");
  if (key === cancelKey) return;
  cancelKey = key;
  const box = $("run-cancel");
  if (finished) { box.replaceChildren(); return; }
  const status = el("span", { className: "form-error" });
  const keep = el("button", { type: "button", textContent: "Keep running", hidden: true });
  const cancel = el("button", { type: "button", id: "cancel-run", className: "danger", textContent: "Cancel run" });
  keep.onclick = () => { keep.hidden = true; cancel.classList.remove("sure"); cancel.textContent = "Cancel run"; };
  cancel.onclick = async () => {
    // Asked once more: a cancel drops the run's pending approvals and cannot be undone.
    if (!cancel.classList.contains("sure")) { cancel.classList.add("sure"); cancel.textContent = "Yes, cancel it"; keep.hidden = false; return; }
    cancel.disabled = keep.disabled = true;
    status.textContent = "";
    try {
      await api("/threads/" + run.thread_id + "/runs/" + run.run_id + "/cancel?wait=true", {});
      void refreshDetail();
    } catch (error) {
      if (error instanceof KeyNeeded) return;
      status.textContent = (error.code ? error.code + ": " : "") + error.message;
      cancel.disabled = keep.disabled = false;
      keep.onclick();
    }
  };
  box.replaceChildren(cancel, keep, status);
}
`;
