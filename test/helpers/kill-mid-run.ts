// Crash tests of declared and planned DAGs: start a child that runs a graph, SIGKILL it once the test's
// condition holds, and read what the child recorded (an `.exec` log beside its database, saved task results).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { SqliteSaver } from "../../checkpointers/index.js";

/** Names of the lines the child appended to `<db>.exec` (first word of each line). */
export function execLog(db: string): string[] {
  return existsSync(`${db}.exec`) ? readFileSync(`${db}.exec`, "utf8").trim().split("\n").map((l) => l.split(" ")[0] ?? l) : [];
}

/** Saved task results (`__return__` writes) of the thread's latest checkpoint, subtasks included, read from another connection. */
export async function savedReturns(db: string, thread: string): Promise<number> {
  if (!existsSync(db)) return 0;
  const saver = SqliteSaver.create({ path: db });
  try {
    const tuple = await saver.getTuple({ configurable: { thread_id: thread } });
    return (tuple?.pendingWrites ?? []).filter(([, channel]) => channel === "__return__").length;
  } finally {
    saver.close();
  }
}

/** Runs `child db thread run` and SIGKILLs it as soon as `ready()` holds (polled every 50 ms); throws if it exits first. */
export async function killWhen(child: string, db: string, thread: string, ready: () => Promise<boolean>): Promise<void> {
  const proc = spawn(process.execPath, ["--import", "tsx", child, db, thread, "run"], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once("exit", resolve));
  for (;;) {
    const state = await Promise.race([exited.then(() => "exited"), new Promise((r) => setTimeout(() => r("poll"), 50))]);
    if (state === "exited") throw new Error(`child exited early: ${stderr}`);
    if (await ready()) break;
  }
  proc.kill("SIGKILL");
  await exited;
}

/** Runs `child db thread resume` to the end in a new process and returns its JSON output. */
export function resumeInNewProcess<T>(child: string, db: string, thread: string): T {
  const resumed = spawnSync(process.execPath, ["--import", "tsx", child, db, thread, "resume"], { encoding: "utf8" });
  if (resumed.status !== 0) throw new Error(`resume failed (${resumed.status}): ${resumed.stderr}`);
  return JSON.parse(resumed.stdout.trim()) as T;
}
