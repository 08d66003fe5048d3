/**
 * One line for an error the SDK or the server reported: the server's own `message` when the SDK's error carries
 * the response body ("HTTP 422: {…}"), else the error's message.
 */
export function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : typeof error === "string" ? error : JSON.stringify(error);
  const body = /^HTTP \d+: (\{.*\})$/s.exec(text)?.[1];
  if (body === undefined) return text;
  try {
    const parsed = JSON.parse(body) as { message?: unknown };
    return typeof parsed.message === "string" ? parsed.message : text;
  } catch {
    return text;
  }
}
