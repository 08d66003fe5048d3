import type { Message } from "@langchain/langgraph-sdk";
import { useStream } from "@langchain/langgraph-sdk/react";
import { useState, type FormEvent } from "react";
import { ApprovalCard, isApprovalRequest, type HitlDecision } from "./ApprovalCard.js";
import { errorText } from "./error-text.js";
import { MessageView } from "./MessageView.js";
import type { ChatSettings } from "./settings.js";

/** The chat: the thread's messages as they stream, a pending approval, and the composer. */
export function App({ apiUrl, assistantId, threadId: initialThread }: ChatSettings) {
  const [threadId, setThreadId] = useState<string | null>(initialThread);
  const [draft, setDraft] = useState("");
  const stream = useStream<{ messages: Message[] }>({
    apiUrl,
    assistantId,
    threadId,
    messagesKey: "messages",
    reconnectOnMount: true,
    fetchStateHistory: false,
    onThreadId: (id) => {
      setThreadId(id);
      // A reload comes back to the same thread.
      const url = new URL(window.location.href);
      url.searchParams.set("thread", id);
      window.history.replaceState(null, "", url);
    },
  });
  const approvals = stream.interrupts.flatMap((i) => (isApprovalRequest(i.value) ? [{ id: i.id, request: i.value }] : []));
  const waiting = approvals.length > 0;

  const send = (event: FormEvent) => {
    event.preventDefault();
    const text = draft.trim();
    if (text === "" || stream.isLoading || waiting) return;
    setDraft("");
    const message: Message = { type: "human", content: text };
    void stream.submit(
      { messages: [message] },
      { streamResumable: true, optimisticValues: (prev) => ({ ...prev, messages: [...(prev.messages ?? []), message] }) },
    );
  };
  const decide = (interruptId: string, decision: HitlDecision) => {
    // Keyed by the interrupt answered: the server binds the decision to that interrupt's action only.
    void stream.submit(undefined, { command: { resume: { [interruptId]: { decisions: [decision] } } }, streamResumable: true });
  };

  return (
    <div className="chat">
      <header>
        <span className="brand">agentrt</span>
        <span className="graph">{assistantId}</span>
        <span className={`state ${stream.isLoading ? "busy" : waiting ? "waiting" : "idle"}`} data-testid="state">
          {stream.isLoading ? "running" : waiting ? "waiting for approval" : "idle"}
        </span>
      </header>
      <main>
        {stream.messages.length === 0 && <p className="empty">Ask the agent something, e.g. “Why did the payments deploy fail?”</p>}
        {stream.messages.map((message, index) => (
          <MessageView key={message.id ?? index} message={message} />
        ))}
        {approvals.map(({ id, request }, index) => (
          // Kept mounted while a decision is sent, so a refused edit keeps the reviewer's text.
          <ApprovalCard key={id ?? index} request={request} busy={stream.isLoading} error={stream.error} onDecide={(decision) => decide(id ?? "", decision)} />
        ))}
        {stream.error !== undefined && !waiting && <p className="error" role="alert">{errorText(stream.error)}</p>}
      </main>
      <form className="composer" onSubmit={send}>
        <textarea
          aria-label="Message"
          value={draft}
          placeholder={waiting ? "Answer the approval above first" : "Message the agent"}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey) send(e);
          }}
        />
        <button type="submit" disabled={stream.isLoading || waiting || draft.trim() === ""}>Send</button>
      </form>
    </div>
  );
}
