// What LangChain's agent-chat-ui (langchain-ai/agent-chat-ui, src/lib/agent-inbox-interrupt.ts) checks before it
// shows Approve / Edit / Reject for an interrupt, restated here from its behaviour (not its code): when this is
// false it falls back to a read-only table of the interrupt's value.

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * True when `interrupt` (one interrupt, or a list whose first one counts) has a value with non-empty snake_case
 * `action_requests` (each with a string `name` and object `args`) and `review_configs` (each with a string
 * `action_name` and an array `allowed_decisions`).
 */
export function agentChatUiShowsButtons(interrupt: unknown): boolean {
  const first: unknown = Array.isArray(interrupt) ? interrupt[0] : interrupt;
  if (!isObject(first) || !isObject(first.value)) return false;
  const requests = first.value.action_requests;
  const configs = first.value.review_configs;
  if (!Array.isArray(requests) || requests.length === 0 || !Array.isArray(configs) || configs.length === 0) return false;
  const requestsOk = requests.every((r) => isObject(r) && typeof r.name === "string" && isObject(r.args));
  const configsOk = configs.every((c) => isObject(c) && typeof c.action_name === "string" && Array.isArray(c.allowed_decisions));
  return requestsOk && configsOk;
}
