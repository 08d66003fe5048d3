import { useState } from "react";
import { errorText } from "./error-text.js";

/** LangChain's HITL request, as agentrt's approval interrupts carry it (beside action_id and args_hash). */
export interface HitlRequest {
  action_requests: { name: string; args: Record<string, unknown>; description?: string }[];
  review_configs: { action_name: string; allowed_decisions: ("approve" | "edit" | "reject")[] }[];
}

/** A reviewer's answer in LangChain's HITL dialect. */
export type HitlDecision =
  | { type: "approve" }
  | { type: "reject"; message?: string }
  | { type: "edit"; edited_action: { name: string; args: Record<string, unknown> } };

/** True for an interrupt value in the HITL shape. */
export function isApprovalRequest(value: unknown): value is HitlRequest {
  return typeof value === "object" && value !== null && Array.isArray((value as HitlRequest).action_requests);
}

/** A pending action with the decisions its review config allows. */
export function ApprovalCard({ request, busy, error, onDecide }: {
  request: HitlRequest; busy: boolean; error: unknown; onDecide: (decision: HitlDecision) => void;
}) {
  const action = request.action_requests[0];
  const allowed = request.review_configs[0]?.allowed_decisions ?? ["approve", "reject"];
  const [mode, setMode] = useState<"view" | "edit" | "reject">("view");
  const [argsText, setArgsText] = useState(() => JSON.stringify(action?.args ?? {}, null, 2));
  const [reason, setReason] = useState("");
  const [localError, setLocalError] = useState<string | undefined>();
  if (action === undefined) return null;

  const submitEdit = () => {
    let args: unknown;
    try {
      args = JSON.parse(argsText);
    } catch (e) {
      setLocalError(`not valid JSON: ${errorText(e)}`);
      return;
    }
    if (args === null || typeof args !== "object" || Array.isArray(args)) {
      setLocalError("the arguments must be a JSON object");
      return;
    }
    setLocalError(undefined);
    onDecide({ type: "edit", edited_action: { name: action.name, args: args as Record<string, unknown> } });
  };
  const shownError = localError ?? (error === undefined ? undefined : errorText(error));

  return (
    <section className="approval" data-testid="approval" aria-label={`approve ${action.name}`}>
      <h2>Approval needed: <code>{action.name}</code></h2>
      {action.description !== undefined && <p className="why">{action.description}</p>}
      {mode === "edit" ? (
        <textarea className="args-editor" aria-label="Arguments" value={argsText} onChange={(e) => setArgsText(e.target.value)} rows={6} />
      ) : (
        <pre className="args">{JSON.stringify(action.args, null, 2)}</pre>
      )}
      {mode === "reject" && <input aria-label="Reason" placeholder="Why not? (told to the agent)" value={reason} onChange={(e) => setReason(e.target.value)} />}
      {shownError !== undefined && <p className="error" role="alert">{shownError}</p>}
      <fieldset className="actions" disabled={busy}>
        {mode === "view" && (
          <>
            {allowed.includes("approve") && <button className="approve" onClick={() => onDecide({ type: "approve" })}>Approve</button>}
            {allowed.includes("edit") && <button onClick={() => setMode("edit")}>Edit</button>}
            {allowed.includes("reject") && <button className="reject" onClick={() => setMode("reject")}>Reject</button>}
          </>
        )}
        {mode === "edit" && (
          <>
            <button className="approve" onClick={submitEdit}>Approve edited</button>
            <button onClick={() => { setMode("view"); setLocalError(undefined); }}>Cancel</button>
          </>
        )}
        {mode === "reject" && (
          <>
            <button className="reject" onClick={() => onDecide(reason === "" ? { type: "reject" } : { type: "reject", message: reason })}>Send rejection</button>
            <button onClick={() => setMode("view")}>Cancel</button>
          </>
        )}
      </fieldset>
    </section>
  );
}
