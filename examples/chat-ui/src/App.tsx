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
    // A reload rejoins the run it left streaming (joinStream).
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
    // While an approval waits, new input supersedes it (the server cancels the waiting run; nothing it asked runs).
    if (text === "" || stream.isLoading) return;
    setDraft("");
    const message: Message = { type: "human", content: text };
    void stream.submit(
      { messages: [message] },
      { streamResumable: true, optimisticValues: (prev) => ({ ...prev, messages: [...(prev.messages ?? []), message] }) },
    );
  };
  const regenerate = async (message: Message) => {
    if (threadId === null) return;
    // The checkpoint before the oldest state showing the message (what getMessagesMetadata reads when the hook
    // fetches history): run from it, the server forks the thread there — a new branch, the old one kept.
    const states = await stream.client.threads.getHistory<{ messages?: Message[] }>(threadId, { limit: 1000 });
    const checkpoint = states.findLast((s) => s.values.messages?.some((m) => m.id === message.id))?.parent_checkpoint;
    if (checkpoint == null) return;
    await stream.submit(undefined, { checkpoint, streamResumable: true });
  };
  // Calls left without a result when the user wrote instead of approving: superseded, never performed.
  const answered = new Set(stream.messages.flatMap((m) => (m.type === "tool" ? [m.tool_call_id] : [])));
  const lastInput = stream.messages.findLastIndex((m) => m.type === "human");
  const dropped = (message: Message, index: number) =>
    index < lastInput && message.type === "ai" ? (message.tool_calls ?? []).flatMap((c) => (c.id !== undefined && !answered.has(c.id) ? [c.id] : [])) : [];
  const lastAnswer = stream.isLoading || waiting ? undefined : stream.messages.findLast((m) => m.type === "ai" && (m.tool_calls ?? []).length === 0);
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
          <MessageView
            key={message.id ?? index}
            message={message}
            notPerformed={dropped(message, index)}
            onRegenerate={message === lastAnswer ? () => void regenerate(message) : undefined}
          />
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
          placeholder={waiting ? "Answer the approval above, or write instead (the pending action is then dropped)" : "Message the agent"}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey) send(e);
          }}
        />
        <button type="submit" disabled={stream.isLoading || draft.trim() === ""}>Send</button>
      </form>
    </div>
  );
}
