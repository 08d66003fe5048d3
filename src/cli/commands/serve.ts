import { workerCount } from "../../server/worker-pool.js";
import { UserInputError } from "../../errors.js";
import type { Command } from "../command.js";

/** `agentrt serve`: the LangGraph Agent Server API (Studio, SDK client) and the run viewer at /ui. */
export const serveCommand: Command = {
  name: "serve",
  summary: "Serve the LangGraph Agent Server API (Studio, SDK) and the run viewer at /ui",
  usage: "agentrt serve [--port 2024] [--host 127.0.0.1] [--cors-origin URL]... [--allowed-host NAME]... [--workers N|auto]",
  details: ["Set AGENTRT_API_KEY to require an x-api-key header on every request. Stops on SIGINT/SIGTERM."],
  flags: {
    port: { type: "string", default: "2024", value: "N", description: "The TCP port to listen on; 0 picks a free one." },
    host: { type: "string", default: "127.0.0.1", value: "ADDR", description: "The address to listen on; keep the loopback one unless AGENTRT_API_KEY is set." },
    "cors-origin": { type: "string", multiple: true, value: "URL", description: "A web page's origin allowed to call the API besides loopback pages and Studio. Default: AGENTRT_CORS_ORIGINS." },
    "allowed-host": { type: "string", multiple: true, value: "NAME", description: "A Host name to answer besides the loopback names. Default: AGENTRT_ALLOWED_HOSTS." },
    workers: { type: "string", value: "N|auto", description: "Fork N worker processes on the database (auto: one per core). Default: AGENTRT_SERVE_WORKERS, else 0." },
  },
  examples: ["agentrt serve", "agentrt serve --port 8123 --workers auto", "AGENTRT_API_KEY=secret agentrt serve --host 0.0.0.0 --allowed-host agents.example.com"],
  async run(ctx) {
    const port = Number(ctx.flags.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UserInputError("BAD_INPUT", `--port must be 0..65535, got ${String(ctx.flags.port)}`);
    const origins = ctx.flags["cors-origin"] as string[] | undefined;
    const hosts = ctx.flags["allowed-host"] as string[] | undefined;
    const flag = ctx.flags.workers as string | undefined;
    // "auto" in any case, like every word the CLI takes.
    const workers = flag === undefined ? undefined : workerCount(flag.trim().toLowerCase() === "auto" ? "auto" : flag, "--workers");
    // Loaded here, not with the CLI: the server brings LangGraph, which the read commands do without.
    const { startServer } = await import("../../server/server.js");
    const server = await startServer({
      port, host: ctx.flags.host as string, db: ctx.db,
      corsOrigins: origins, allowedHosts: hosts,
      workers, log: ctx.err,
    });
    const line = { url: server.url, port: server.port, ui: `${server.url}/ui`, studio: `https://smith.langchain.com/studio/?baseUrl=${server.url}`, workers: server.workers.length };
    const forked = line.workers === 0 ? "" : `; ${line.workers} worker process${line.workers === 1 ? "" : "es"}`;
    ctx.out(ctx.json ? JSON.stringify(line) : `agentrt serving ${server.url} (viewer ${line.ui}; Studio ${line.studio}${forked})`);
    await new Promise<void>((resolve) => {
      const stop = (): void => {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
        resolve();
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
    });
    await server.close();
    return 0;
  },
};
