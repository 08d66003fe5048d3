// Raw HTTP requests for tests that send bodies the SDK would not (bad input, reserved metadata) and read the
// answer as sent, status included.

/** Why something failed, as the API says it (an error answer, a run's `__error__`, a damaged thread's `error`). */
export interface ApiError {
  error: string;
  message: string;
}

/** The fields of the API's JSON answers these tests read: errors, threads, states, run results. */
export interface ApiBody {
  code?: string;
  message?: string;
  thread_id?: string;
  run_id?: string;
  metadata?: Record<string, unknown>;
  values?: Record<string, unknown>;
  error?: ApiError;
  checkpoint?: { checkpoint_id: string } | null;
  __error__?: ApiError;
}

/** One request with a JSON body (or none); the answer's status and parsed body (undefined when empty). */
export async function httpCall(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: ApiBody & ApiBody[] }> {
  const response = await fetch(`${url}${path}`, {
    method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: (text === "" ? undefined : JSON.parse(text)) as ApiBody & ApiBody[] };
}
