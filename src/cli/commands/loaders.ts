/**
 * Each `agentrt` command by name, loaded when it runs: a command pays only for its own imports (`status` reads
 * the database without the runtime, LangGraph or the server). `index.ts` loads them all, for help.
 * @module
 */
import type { Command } from "../command.js";

/** Loads the command called `name`, in the order `--help` lists them. */
export const COMMAND_LOADERS: Readonly<Record<string, () => Promise<Command>>> = {
  run: async () => (await import("./run.js")).runCommand,
  approve: async () => (await import("./approve.js")).approveCommand,
  reject: async () => (await import("./reject.js")).rejectCommand,
  input: async () => (await import("./input.js")).inputCommand,
  status: async () => (await import("./status.js")).statusCommand,
  runs: async () => (await import("./runs.js")).runsCommand,
  cancel: async () => (await import("./cancel.js")).cancelCommand,
  worker: async () => (await import("./worker.js")).workerCommand,
  graph: async () => (await import("./graph.js")).graphCommand,
  world: async () => (await import("./world.js")).worldCommand,
  trace: async () => (await import("./trace.js")).traceCommand,
  stats: async () => (await import("./stats.js")).statsCommand,
  eval: async () => (await import("./eval.js")).evalCommand,
  serve: async () => (await import("./serve.js")).serveCommand,
  info: async () => (await import("./info.js")).infoCommand,
};
