// The demo: ops_rollback pauses for approval in one process, which exits; a second
// process approves and resumes it from the SQLite file; the world shows exactly one rollback.
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const db = process.env.AGENTRT_DEMO_DB ?? "./agentrt-demo.db";
const message = "Find out why the payments deploy failed; if it needs a rollback, ask me first; after the rollback confirm the service recovered.";

function agentrt(args: string[], capture = false): { status: number; stdout: string } {
  const result = spawnSync(process.execPath, ["--import", "tsx", "src/cli/bin.ts", ...args, "--db", db], {
    cwd: root,
    encoding: "utf8",
    stdio: capture ? ["ignore", "pipe", "inherit"] : "inherit",
  });
  if (result.status === null) throw new Error(`agentrt ${args[0]} was killed by ${result.signal}`);
  return { status: result.status, stdout: result.stdout ?? "" };
}

function banner(text: string): void {
  process.stdout.write(`\n\x1b[1m== ${text}\x1b[0m\n`);
}

for (const suffix of ["", "-wal", "-shm"]) rmSync(`${db}${suffix}`, { force: true });

banner(`process 1 (pid of its own): agentrt run ops_rollback --message "${message}"`);
if (agentrt(["run", "ops_rollback", "--message", message, "--user", "alice"]).status !== 0) process.exit(1);

const waiting = JSON.parse(agentrt(["runs", "--status", "WAITING_APPROVAL", "--json"], true).stdout) as {
  runs: { run_id: string; pending: { action_id: string; args_hash: string; tool: string }[] }[];
};
const run = waiting.runs[0];
const action = run?.pending[0];
if (run === undefined || action === undefined) {
  process.stderr.write("demo: the run did not stop for approval\n");
  process.exit(1);
}
banner(`process 1 exited; the run waits in ${db}. Process 2 approves ${action.tool} (${action.action_id})`);
if (agentrt(["approve", run.run_id, "--action", action.action_id, "--args-hash", action.args_hash, "--by", "alice"]).status !== 0) process.exit(1);

banner("the simulated world: how many rollbacks really happened");
const world = JSON.parse(agentrt(["world", "--json"], true).stdout) as { calls: Record<string, number> };
for (const [tool, count] of Object.entries(world.calls)) process.stdout.write(`  ${tool}: ${count}\n`);

banner(`the trace: agentrt trace ${run.run_id} --db ${db}`);
agentrt(["trace", run.run_id]);
process.exit(world.calls.rollback_deployment === 1 ? 0 : 1);
