/**
 * Each HTTP attempt of a model call, made visible. A model built by `createOpenAIModel` sends its requests
 * through {@link attemptFetch}, which notes every request's start and end (status or error) in the
 * {@link AttemptLog} the caller runs the call under (AsyncLocalStorage: concurrent calls of one model each
 * see their own). The client's retries stay LangChain's; only what they did becomes visible, so a call that
 * took three attempts is traced and counted as three.
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** One HTTP request of a model call. */
export interface ModelAttempt {
  /** 1, 2, … within the call. */
  attempt: number;
  startedAt: number;
  endedAt: number;
  /** The HTTP status, when the server answered. */
  status?: number;
  /** One line saying why the attempt failed; undefined when it succeeded. */
  error?: string;
}

const current = new AsyncLocalStorage<AttemptLog>();

/** The attempts of one model call, in the order they started. */
export class AttemptLog {
  /** Attempts that ended, in the order they ended. */
  readonly attempts: ModelAttempt[] = [];
  readonly #open = new Map<number, number>();
  #started = 0;
  #closed = false;

  /** `signal`: the caller's, which the call is given; a request it aborts is ended by {@link close}, with its reason. */
  constructor(readonly signal?: AbortSignal) {}

  /** Runs `call` with this log current, so the HTTP requests it makes are noted here. */
  run<T>(call: () => Promise<T>): Promise<T> {
    return current.run(this, call);
  }

  /** How many requests the call started. */
  get started(): number {
    return this.#started;
  }

  /**
   * Ends the log: attempts still in flight (the call was cut, e.g. at the run's deadline) end now with `reason`,
   * and later reports are ignored. Returns every attempt, in the order they started.
   */
  close(reason: string, now: number = Date.now()): ModelAttempt[] {
    if (!this.#closed) {
      for (const [attempt, startedAt] of this.#open) this.attempts.push({ attempt, startedAt, endedAt: now, error: reason });
      this.#open.clear();
      this.#closed = true;
    }
    return [...this.attempts].sort((a, b) => a.attempt - b.attempt);
  }

  /** @internal Notes a request starting; returns its number. */
  begin(now: number): number {
    const attempt = ++this.#started;
    if (!this.#closed) this.#open.set(attempt, now);
    return attempt;
  }

  /** @internal Notes a request ending. */
  end(attempt: number, fields: { endedAt: number; status?: number; error?: string }): void {
    const startedAt = this.#open.get(attempt);
    if (this.#closed || startedAt === undefined) return;
    this.#open.delete(attempt);
    this.attempts.push({ attempt, startedAt, ...fields });
  }
}

/**
 * A `fetch` that notes each request in the current {@link AttemptLog} (if any), for the OpenAI client's
 * `configuration.fetch`. `timeoutMs`: the client's per-request timeout, named when a request is cut by it.
 */
export function attemptFetch(timeoutMs: number, base: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    const log = current.getStore();
    if (log === undefined) return base(input, init);
    const attempt = log.begin(Date.now());
    try {
      const response = await base(input, init);
      const endedAt = Date.now();
      log.end(attempt, response.ok ? { endedAt, status: response.status } : { endedAt, status: response.status, error: await errorLine(response) });
      return response;
    } catch (error) {
      // Cut by the caller: close() names why.
      if (log.signal?.aborted === true) throw error;
      // Otherwise an abort is the client's own, at its timeout.
      const timedOut = error instanceof Error && error.name === "AbortError";
      log.end(attempt, { endedAt: Date.now(), error: timedOut ? `no answer within ${timeoutMs} ms` : firstLine(error) });
      throw error;
    }
  };
}

/** `HTTP 500: <the server's message>`, read from a copy of the body (the client still reads the original). */
async function errorLine(response: Response): Promise<string> {
  let message: string | undefined;
  try {
    const body = (await response.clone().json()) as { error?: { message?: unknown } };
    if (typeof body.error?.message === "string") message = body.error.message;
  } catch {
    // Not JSON: the status says enough.
  }
  return `HTTP ${response.status}${message === undefined ? "" : `: ${firstLine(message)}`}`;
}

function firstLine(value: unknown): string {
  const text = value instanceof Error ? value.message : String(value);
  return text.split("\n")[0] ?? text;
}
