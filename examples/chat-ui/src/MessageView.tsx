import type { Message } from "@langchain/langgraph-sdk";

/**
 * One message: the user's, the agent's (with the tools it calls; `notPerformed`: calls superseded before they ran),
 * or a tool's result; `onRegenerate` offers a new answer.
 */
export function MessageView({ message, notPerformed = [], onRegenerate }: { message: Message; notPerformed?: string[]; onRegenerate?: (() => void) | undefined }) {
  const text = contentText(message.content);
  if (message.type === "tool") {
    const failed = message.status === "error";
    return (
      <div className={`tool-result ${failed ? "failed" : ""}`} data-testid="tool-result">
        <span className="tool-name">{message.name ?? "tool"}</span> {failed ? "failed" : "done"}
        <details><summary>result</summary><pre>{text}</pre></details>
      </div>
    );
  }
  const calls = message.type === "ai" ? message.tool_calls ?? [] : [];
  return (
    <div className={`bubble ${message.type === "human" ? "user" : "agent"}`} data-testid={message.type === "human" ? "user-message" : "agent-message"}>
      {text !== "" && <p>{text}</p>}
      {calls.length > 0 && (
        <ul className="calls">
          {calls.map((call, i) => (
            <li key={call.id ?? i}>
              <code>{call.name}</code> <span className="args">{JSON.stringify(call.args)}</span>
              {call.id !== undefined && notPerformed.includes(call.id) && <span className="not-performed" data-testid="not-performed"> not performed</span>}
            </li>
          ))}
        </ul>
      )}
      {onRegenerate !== undefined && <button className="link regenerate" onClick={onRegenerate}>Regenerate</button>}
    </div>
  );
}

function contentText(content: Message["content"]): string {
  if (typeof content === "string") return content;
  return content.map((part) => ("text" in part && typeof part.text === "string" ? part.text : "")).join("");
}
