import { startServer } from "../../server/server.js";
import { workerCount } from "../../server/worker-pool.js";
import { UserInputError } from "../../errors.js";
import type { Command } from "../command.js";

/** `agentrt serve`: the LangGraph Agent Server API (Studio, SDK client) and the run viewer at /ui. */
export const serveCommand: Command = {
  name: "serve",
  summary: "Serve the LangGraph Agent Server API (Studio, SDK) and the run viewer at /ui",
  usage: "agentrt serve [--port 2024] [--host 127.0.0.1] [--db PATH] [--cors-origin URL]... [--allowed-host NAME]... [--workers N|auto]   " +
    "(AGENTRT_API_KEY enables auth; --cors-origin adds a web page's origin to the allowed ones (loopback pages, Studio), default AGENTRT_CORS_ORIGINS; " +
    "--allowed-host adds a Host name to answer besides the loopback names, default AGENTRT_ALLOWED_HOSTS; " +
    "--workers forks N worker processes on the file, default AGENTRT_SERVE_WORKERS or 0)",
  flags: {
    port: { type: "string", default: "2024" },
    host: { type: "string", default: "127.0.0.1" },
    "cors-origin": { type: "string", multiple: true },
    "allowed-host": { type: "string", multiple: true },
    workers: { type: "string" },
  },
  async run(ctx) {
    const port = Number(ctx.flags.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UserInputError("BAD_INPUT", `--port must be 0..65535, got ${String(ctx.flags.port)}`);
    const origins = ctx.flags["cors-origin"] as string[] | undefined;
    const hosts = ctx.flags["allowed-host"] as string[] | undefined;
    const flag = ctx.flags.workers as string | undefined;
    const workers = flag === undefined ? undefined : workerCount(flag, "--workers");
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
