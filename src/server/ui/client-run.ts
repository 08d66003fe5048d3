/**
 * Browser code of a run's page: loads the run, its trace, state history and graph; draws the header
 * (status, usage, duration), the error with its code, the result, and the forms that move a waiting run
 * on: approve / edit / reject a pending action, answer a WAITING_INPUT question (cancel and events: client-events.ts).
 * @module
 */

/** Browser script: the run page and its forms. */
export const CLIENT_RUN = String.raw`
let detailSeq = 0;
async function refreshDetail() {
  const runId = ui.selected;
  if (!runId) return;
  const seq = ++detailSeq;
  try {
    const run = await api("/agentrt/runs/" + runId);
    const [spans, history, events] = await Promise.all([
      api("/agentrt/runs/" + runId + "/trace"),
      api("/threads/" + run.thread_id + "/history", { limit: 200 }).catch(() => []),
      api("/agentrt/runs/" + runId + "/events").catch(() => []),
    ]);
    if (seq !== detailSeq || ui.selected !== runId) return;
    // The thread may hold other runs: keep this run's checkpoints, oldest first.
    const mine = history.filter((c) => !c.metadata || !c.metadata.run_id || c.metadata.run_id === runId).reverse();
    ui.detail = { run, spans, history: mine, events };
    renderDetail();
    await renderGraph(run, mine);
  } catch (error) { flash(error); }
}

function renderDetail() {
  const { run, spans, history, events } = ui.detail;
  $("placeholder").hidden = true;
  $("detail").hidden = false;
  renderHead(run, spans);
  const err = $("run-error");
  err.hidden = !run.error;
  if (run.error) err.replaceChildren(el("span", { className: "code", textContent: run.error.code }), el("span", { textContent: run.error.message }));
  const result = typeof run.result === "string" ? run.result : run.result === null ? "" : pretty(run.result);
  $("result-card").hidden = !result;
  $("run-result").textContent = result;
  renderActions(run);
  renderCancel(run);
  renderEvents(events);
  renderConversation(run, spans, history);
  renderTimeline(history);
  renderWaterfall(spans);
}

function renderHead(run, spans) {
  const root = spans.find((s) => s.parentId === null);
  const ms = root ? (root.endMs ?? Date.now()) - root.startMs : Date.parse(run.updated_at) - Date.parse(run.created_at);
  const waited = spans.filter((s) => s.kind === "approval_wait" || s.kind === "input_wait").reduce((t, s) => t + ((s.endMs ?? Date.now()) - s.startMs), 0);
  const stat = (value, label) => el("div", { className: "stat" }, el("b", { textContent: value || "0" }), el("span", { textContent: label }));
  $("run-head").replaceChildren(
    el("h2", { textContent: run.graph }), el("span", { id: "run-status", className: "pill " + run.status, textContent: run.status }),
    el("span", { className: "id", textContent: run.run_id, title: "thread " + run.thread_id }),
    el("span", { className: "sub", textContent: "by " + run.user + " · started " + ago(run.created_at), title: run.created_at }),
    el("div", { className: "stats" }, stat(duration(ms - waited), "working time"), waited ? stat(duration(waited), "waiting") : null,
      stat(String(run.usage.steps), "steps"), stat(String(run.usage.model_calls), "model calls"), stat(count(run.usage.tokens), "tokens"),
      stat(money(run.usage.cost_usd) || "$0", "cost"), run.wait_expires_at ? stat(ago(run.wait_expires_at), "wait expires") : null));
}

let actionsKey = "";
function renderActions(run) {
  // Rebuilding the forms on every live update would wipe what the user is typing.
  const key = run.run_id + run.status + JSON.stringify(run.pending) + JSON.stringify(run.input_requests);
  if (key === actionsKey) return;
  actionsKey = key;
  $("actions").replaceChildren(...run.pending.map((a) => approvalForm(run, a)), ...run.input_requests.map((q) => inputForm(run, q)));
}

function approvalForm(run, action) {
  const reason = el("textarea", { placeholder: "Reason (optional; shown to the model on reject)", rows: 2 });
  const args = el("textarea", { className: "args", value: pretty(action.args), rows: 6, readOnly: true });
  const status = el("span", { className: "form-error" });
  const editable = (action.allowed_decisions || ["approve", "reject"]).includes("edit");
  const note = el("span", { className: "note", hidden: true,
    textContent: "Approves the call with these arguments: the tool's schema and the policy check them again (a change may need another approver)." });
  const send = async (kind, body, button) => {
    for (const b of box.querySelectorAll("button")) b.disabled = true;
    status.textContent = "";
    try {
      await api("/agentrt/runs/" + run.run_id + "/" + kind + "?wait=false", Object.assign({ action_id: action.action_id, args_hash: action.args_hash }, body));
      status.textContent = kind === "reject" ? "Rejected; the run continues…" : body.edited_args ? "Approved with your edit; the run continues…" : "Approved; the run continues…";
      status.style.color = "#166534";
      void refreshDetail();
    } catch (error) {
      if (error instanceof KeyNeeded) return;
      status.textContent = (error.code ? error.code + ": " : "") + error.message;
      for (const b of box.querySelectorAll("button")) b.disabled = false;
    }
  };
  const withReason = () => (reason.value.trim() ? { reason: reason.value.trim() } : {});
  const edit = el("button", { className: "edit", type: "button", textContent: "Edit arguments", onclick: () => {
    if (args.readOnly) { args.readOnly = false; args.focus(); note.hidden = false; edit.textContent = "Send edited arguments"; return; }
    let edited;
    try { edited = JSON.parse(args.value); } catch (e) { status.textContent = "Arguments are not valid JSON: " + e.message; return; }
    if (edited === null || typeof edited !== "object" || Array.isArray(edited)) { status.textContent = "Arguments must be a JSON object"; return; }
    void send("approve", Object.assign({ edited_args: edited }, withReason()));
  } });
  const box = el("div", { className: "action approval" },
    el("h4", { textContent: "Approval needed: " + action.tool }),
    el("div", { className: "why", textContent: [action.reason, action.approvers ? "approvers: " + action.approvers.join(", ") : "", "args_hash " + action.args_hash.slice(0, 16) + "…"].filter(Boolean).join(" · ") }),
    args, reason,
    el("div", { className: "buttons" },
      el("button", { className: "approve", type: "button", textContent: "Approve", onclick: () => send("approve", withReason()) }),
      editable ? edit : null,
      el("button", { className: "reject", type: "button", textContent: "Reject", onclick: () => send("reject", withReason()) }),
      note, status));
  return box;
}

function inputForm(run, request) {
  const answer = el("textarea", { rows: 2, placeholder: "Your answer", required: true });
  const status = el("span", { className: "form-error" });
  const submit = el("button", { type: "submit", textContent: "Send answer" });
  return el("form", { className: "action input-request", onsubmit: async (event) => {
    event.preventDefault();
    submit.disabled = true;
    status.textContent = "";
    try {
      // The Agent Server API's resume: what interrupt() returns is the answer.
      await api("/threads/" + run.thread_id + "/runs", { assistant_id: run.graph, command: { resume: answer.value } });
      status.textContent = "Sent; the run continues…";
      status.style.color = "#075985";
      void refreshDetail();
    } catch (error) {
      if (error instanceof KeyNeeded) return;
      status.textContent = (error.code ? error.code + ": " : "") + error.message;
      submit.disabled = false;
    }
  } },
    el("h4", { textContent: "The run asks: " + (request.question || "(no question text)") }),
    el("div", { className: "why", textContent: "WAITING_INPUT · interrupt " + request.interrupt_id }),
    answer, el("div", { className: "buttons" }, submit, status));
}
`;
