/**
 * The process-wide limits every tool call passes: a per-tool concurrency cap,
 * a per-tool token bucket and one global concurrency cap.
 * @module
 */
import { ConcurrencyLimiter, ConcurrencyRegistry } from "./concurrency.js";
import { RateLimiterRegistry, type TokenBucketOptions } from "./rate-limit.js";

/** Limits of one tool. */
export interface ToolLimitOptions {
  /** Calls of this tool in flight at once. @default unlimited */
  concurrency?: number;
  /** Token bucket for this tool. @default no rate limit */
  rate?: TokenBucketOptions;
}

/**
 * The limits a tool declares (`defineTool({ limits })`). On PostgreSQL they hold across every process on the
 * database, breaker included; elsewhere they are this process's (see {@link ToolLimits.declare}).
 */
export interface ToolLimitSpec {
  /** Calls of this tool in flight at once. @default unlimited */
  concurrency?: number;
  /** Token bucket: `ratePerSecond` refill up to `burst` (@default max(1, ceil(ratePerSecond))). @default no rate limit */
  rate?: { ratePerSecond: number; burst?: number };
  /** When the tool's breaker opens and for how long. @default 5 consecutive failures, 30 s */
  breaker?: { failureThreshold?: number; cooldownMs?: number };
}

/** Caps shared by all runs of the process. */
export class ToolLimits {
  readonly global: ConcurrencyLimiter;
  readonly perTool = new ConcurrencyRegistry();
  readonly rates = new RateLimiterRegistry();

  /** @param globalConcurrency tool calls in flight across all tools. @default Infinity */
  constructor(globalConcurrency = Infinity) {
    this.global = new ConcurrencyLimiter(globalConcurrency);
  }

  readonly #declared = new Map<string, ToolLimitSpec>();

  /** Applies a tool's declared limits when first seen (and again only if the declaration object changes). */
  declare(tool: string, spec: ToolLimitSpec): void {
    if (this.#declared.get(tool) === spec) return;
    this.#declared.set(tool, spec);
    this.configure(tool, spec);
  }

  /** Sets one tool's caps. */
  configure(tool: string, options: ToolLimitOptions): void {
    if (options.concurrency !== undefined) this.perTool.configure(tool, options.concurrency);
    if (options.rate !== undefined) this.rates.configure(tool, options.rate);
  }

  /**
   * Runs `fn` once it holds a tool slot, a rate token and a global slot, in
   * that order: a call queued behind its own busy tool never occupies one of
   * the scarce global slots. Slots are held until `fn` settles.
   */
  async run<T>(tool: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const releaseTool = await this.perTool.get(tool).acquire(signal);
    try {
      await this.rates.acquire(tool, signal);
      return await this.global.run(fn, signal);
    } finally {
      releaseTool();
    }
  }
}

/** The process-wide tool limits (no caps until configured). */
export const toolLimits = new ToolLimits();
