/**
 * The worker processes of `agentrt serve --workers N`: forks them on the
 * server's SQLite file, pokes one when a run is queued, forwards "this run
 * came to rest" to the server's waiters, restarts a worker that died (with
 * backoff) and stops them all with the server. Runs a dead worker held are
 * recovered by lease expiry, as for any worker.
 * @module
 */
import { fork, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { extname } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isPostgresUrl } from "../db/index.js";
import { UserInputError } from "../errors.js";
import type { RunStatus } from "../runs/index.js";
import type { StorageStall } from "./storage-stalls.js";
import { parseFromWorker, type ToWorker, type WorkerChildSpec } from "./worker-ipc.js";

/** Options of {@link WorkerPool}. */
export interface WorkerPoolOptions {
  count: number;
  /** What each worker opens; `workerId` is added per worker. */
  spec: Omit<WorkerChildSpec, "workerId">;
  /** Prefix of the workers' ids (lease owners): `<prefix>_w<i>_<generation>`. */
  idPrefix: string;
  /** A worker's run came to rest; `values`: its final state (wire form) when it ran to its end. */
  onRest: (runId: string, status: RunStatus, values?: Record<string, unknown>) => void;
  /** The disk refused a write of a worker's execution of a run (see the runtime's `storage_failed` event). */
  onStall?: (runId: string, stall: StorageStall) => void;
  log: (line: string) => void;
}

/** A live worker process. */
export interface WorkerInfo {
  id: string;
  pid: number;
  ready: boolean;
}

interface Slot {
  index: number;
  generation: number;
  child?: ChildProcess;
  id?: string;
  ready: boolean;
  startedAt: number;
  failures: number;
  restart?: NodeJS.Timeout;
}

/** First restart delay after a crash; doubles per crash in a row, up to {@link MAX_BACKOFF_MS}. */
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;
/** A worker that ran this long before dying starts a fresh backoff series. */
const STABLE_MS = 60_000;
/** How long stop() waits for a worker to hand its runs back before SIGKILL. */
const STOP_TIMEOUT_MS = 15_000;

/** Forked worker processes sharing the server's database. */
export class WorkerPool {
  private readonly slots: Slot[];
  private next = 0;
  private stopping = false;

  constructor(private readonly options: WorkerPoolOptions) {
    this.slots = Array.from({ length: options.count }, (_, index) => ({ index, generation: 0, ready: false, startedAt: 0, failures: 0 }));
  }

  /** Forks every worker. */
  start(): void {
    for (const slot of this.slots) this.spawn(slot);
  }

  /** Workers alive now. */
  get workers(): WorkerInfo[] {
    return this.slots.flatMap((s) => (s.child?.pid === undefined || s.id === undefined ? [] : [{ id: s.id, pid: s.child.pid, ready: s.ready }]));
  }

  /** True while at least one worker is ready to claim. */
  get ready(): boolean {
    return this.slots.some((s) => s.ready);
  }

  /** Makes one ready worker (round robin) claim now; false when none is ready. */
  poke(): boolean {
    for (let i = 0; i < this.slots.length; i++) {
      const slot = this.slots[(this.next + i) % this.slots.length]!;
      if (slot.ready && this.send(slot, { type: "poke" })) {
        this.next = (slot.index + 1) % this.slots.length;
        return true;
      }
    }
    return false;
  }

  /** Tells every worker a run was canceled, so the one executing it stops now rather than at its next heartbeat. */
  canceled(runId: string): void {
    for (const slot of this.slots) if (slot.ready) this.send(slot, { type: "canceled", runId });
  }

  /** True when `workerId` names a live worker process of this pool (its rests are reported over IPC). */
  reportsRests(workerId: string): boolean {
    return this.slots.some((s) => s.child !== undefined && s.id === workerId);
  }

  /** SIGTERM to every worker (they hand back their runs and exit); SIGKILL after a timeout. No restarts after this. */
  async stop(): Promise<void> {
    this.stopping = true;
    const exits: Promise<void>[] = [];
    for (const slot of this.slots) {
      clearTimeout(slot.restart);
      const child = slot.child;
      if (child === undefined || child.exitCode !== null || child.signalCode !== null) continue;
      exits.push(new Promise<void>((resolve) => {
        const kill = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
        child.once("exit", () => {
          clearTimeout(kill);
          resolve();
        });
      }));
      child.kill("SIGTERM");
    }
    await Promise.all(exits);
  }

  private spawn(slot: Slot): void {
    slot.generation++;
    const id = `${this.options.idPrefix}_w${slot.index + 1}_${slot.generation}`;
    const { entry, execArgv } = childEntry();
    const { db } = this.options.spec;
    // A URL (and its password) travels in the environment, not in argv, which any user may read with ps.
    const url = isPostgresUrl(db);
    const child = fork(entry, [JSON.stringify({ ...this.options.spec, db: url ? "" : db, workerId: id } satisfies WorkerChildSpec)], {
      execArgv,
      ...(url ? { env: { ...process.env, AGENTRT_DATABASE_URL: db } } : {}),
      // stdout stays the server's (`--json` prints one object there); stderr lines go to the server's log.
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    Object.assign(slot, { child, id, ready: false, startedAt: Date.now() });
    if (child.stderr !== null) createInterface({ input: child.stderr }).on("line", (line) => this.options.log(`worker ${id}: ${line}`));
    child.on("message", (raw) => {
      const message = parseFromWorker(raw);
      if (message?.type === "ready") slot.ready = slot.child === child;
      else if (message?.type === "rest") this.options.onRest(message.runId, message.status, message.values);
      else if (message?.type === "stalled") this.options.onStall?.(message.runId, message);
    });
    // A failed send (the channel closing) surfaces here; the exit handler does the rest.
    child.on("error", (error) => this.options.log(`worker ${id}: ${error.message}`));
    child.once("exit", (code, signal) => this.exited(slot, child, code, signal));
  }

  private exited(slot: Slot, child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (slot.child !== child) return;
    slot.child = undefined;
    slot.ready = false;
    if (this.stopping) return;
    slot.failures = Date.now() - slot.startedAt >= STABLE_MS ? 1 : slot.failures + 1;
    const delay = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (slot.failures - 1));
    // Code 0: it was told to stop (a signal to it alone, or Ctrl-C reaching the whole process group) and handed its runs back.
    const how = code === 0 ? "stopped, its runs handed back" : `exited (${signal ?? `code ${String(code)}`}); its runs come back when their leases expire`;
    this.options.log(`worker ${slot.id ?? "?"} ${how}; restarting in ${delay} ms`);
    slot.restart = setTimeout(() => {
      slot.restart = undefined;
      if (!this.stopping) this.spawn(slot);
    }, delay);
    slot.restart.unref();
  }

  private send(slot: Slot, message: ToWorker): boolean {
    const child = slot.child;
    if (child === undefined || !child.connected) return false;
    try {
      // false only means the channel's buffer is full: the message is still queued.
      child.send(message);
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * The worker entry next to this module, and how to run it: the compiled `.js` with the server's
 * own node flags (minus inspector flags, whose port is taken), or from the `.ts` sources with tsx.
 */
function childEntry(): { entry: string; execArgv: string[] } {
  const here = fileURLToPath(import.meta.url);
  const ext = extname(here) === ".ts" ? ".ts" : ".js";
  const entry = fileURLToPath(new URL(`./worker-child${ext}`, import.meta.url));
  if (ext === ".js") return { entry, execArgv: process.execArgv.filter((a) => !/^--(inspect|debug)/.test(a)) };
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  // `node --cpu-prof` on the server profiles its workers too (bench/_profile-server.ts).
  return { entry, execArgv: ["--import", tsx, ...process.execArgv.filter((a) => a.startsWith("--cpu-prof"))] };
}

/** Most worker processes a server forks. */
export const MAX_WORKERS = 64;

/**
 * The worker count a flag, option or env value asks for: an integer 0..64, or "auto": one per core
 * (none on one core). Not cores − 1: with workers, the server's own process mostly parses HTTP and waits
 * (~4 of ~15 ms CPU per run.wait in `npm run bench -- server`), so a core kept for it would idle.
 * `source` names the value in the error.
 */
export function workerCount(value: number | string | undefined, source: string): number {
  if (value === undefined || (typeof value === "string" && value.trim() === "")) return 0;
  if (value === "auto") return autoWorkers();
  const n = typeof value === "number" ? value : /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > MAX_WORKERS) {
    throw new UserInputError("BAD_INPUT", `${source} must be an integer 0..${MAX_WORKERS} or "auto", got ${String(value)}`);
  }
  return n;
}

/** What "auto" means here: one worker process per core, none on a single core (it would only add a process). */
export function autoWorkers(): number {
  const cores = availableParallelism();
  return cores <= 1 ? 0 : Math.min(MAX_WORKERS, cores);
}
