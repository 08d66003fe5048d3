/** Which server and graph the page talks to: `?api=…&graph=…&thread=…`, else agentrt serve's default port and ops_rollback. */
export interface ChatSettings {
  apiUrl: string;
  assistantId: string;
  threadId: string | null;
}

/** Reads the settings from the page's URL. */
export function chatSettings(url: URL): ChatSettings {
  return {
    apiUrl: url.searchParams.get("api") ?? "http://localhost:2024",
    assistantId: url.searchParams.get("graph") ?? "ops_rollback",
    threadId: url.searchParams.get("thread"),
  };
}
