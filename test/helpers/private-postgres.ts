// A PostgreSQL cluster of a test's own, made with Debian's postgresql-common tools (as root, as here and in CI), for
// a test that must stop or restart the server: the shared cluster on port 5432 serves every other test file and is
// never restarted. Made without fsync (a throwaway cluster needs no durability), so creating and starting it takes
// a few seconds.
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { createServer } from "node:net";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";

const run = promisify(execFile);
/** Every cluster this helper makes is named `agentrt_t_<label>_<pid of the test process>`. */
const PREFIX = "agentrt_t_";

/** A running cluster of the test's own on 127.0.0.1 (trust auth, user postgres, database `agentrt`). */
export interface PrivatePostgres {
  /** The cluster's name (`pg_lsclusters` shows it). */
  readonly name: string;
  /** The PostgreSQL major version it runs. */
  readonly version: string;
  readonly port: number;
  /** `postgres://postgres@127.0.0.1:<port>/agentrt?schema=<schema>`. */
  url(schema: string): string;
  /** `pg_ctlcluster … restart`: the server stops (ending every session) and starts again; resolves once it is up. */
  restart(): Promise<void>;
  /** `pg_dropcluster --stop`: stops the server and deletes the cluster; idempotent. */
  drop(): Promise<void>;
}

/** Registers beforeAll/afterAll hooks that make, start and always drop a cluster; use the result inside tests. */
export function usePrivatePostgres(label: string): { readonly cluster: PrivatePostgres } {
  let cluster: PrivatePostgres | undefined;
  beforeAll(async () => {
    cluster = await startPrivatePostgres(label);
  }, 120_000);
  afterAll(async () => {
    await cluster?.drop();
  }, 60_000);
  return {
    get cluster(): PrivatePostgres {
      if (cluster === undefined) throw new Error("usePrivatePostgres: the cluster is made in beforeAll; use it inside a test");
      return cluster;
    },
  };
}

/** Creates and starts cluster `agentrt_t_<label>_<pid>` on a free port, with database `agentrt`. */
export async function startPrivatePostgres(label: string): Promise<PrivatePostgres> {
  if (process.getuid?.() !== 0) throw new Error("startPrivatePostgres: pg_createcluster needs root (as in CI); run the tests as root");
  if (!/^[a-z0-9]+$/.test(label)) throw new Error(`startPrivatePostgres: label must be [a-z0-9]+, got ${label}`);
  const version = newestVersion();
  await dropLeftovers(version);
  const name = `${PREFIX}${label}_${process.pid}`;
  await drop(version, name); // this process's own, should a test call this twice
  const port = await freePort();
  try {
    // fsync off: a throwaway cluster; --no-sync: initdb does not wait for the disk either.
    await run("pg_createcluster", [version, name, "-p", String(port), "-o", "fsync=off", "-o", "synchronous_commit=off", "-o", "full_page_writes=off", "--", "--auth=trust", "--no-sync"]);
    await ctl(version, name, "start");
    await createDatabase(port);
  } catch (error) {
    await drop(version, name);
    throw error;
  }
  return {
    name, version, port,
    url: (schema) => `postgres://postgres@127.0.0.1:${port}/agentrt?schema=${schema}`,
    restart: async () => {
      await ctl(version, name, "restart");
    },
    drop: () => drop(version, name),
  };
}

/** The newest installed major version (`/etc/postgresql/<version>`). */
function newestVersion(): string {
  const versions = readdirSync("/etc/postgresql").filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
  if (versions[0] === undefined) throw new Error("startPrivatePostgres: no PostgreSQL under /etc/postgresql");
  return versions[0];
}

/** pg_ctlcluster without systemd's redirect (CI has no systemd; it waits for the server either way). */
async function ctl(version: string, name: string, action: "start" | "restart"): Promise<void> {
  await run("pg_ctlcluster", ["--skip-systemctl-redirect", version, name, action]);
}

async function drop(version: string, name: string): Promise<void> {
  const { stdout } = await run("pg_lsclusters", ["--no-header"]);
  const exists = stdout.split("\n").some((line) => line.split(/\s+/)[0] === version && line.split(/\s+/)[1] === name);
  if (exists) await run("pg_dropcluster", ["--stop", version, name]);
}

/** Drops this helper's clusters whose test process is gone (killed before its afterAll). */
async function dropLeftovers(version: string): Promise<void> {
  const { stdout } = await run("pg_lsclusters", ["--no-header"]);
  for (const line of stdout.split("\n")) {
    const [v, name] = line.trim().split(/\s+/);
    const pid = Number(name?.startsWith(PREFIX) === true ? name.slice(name.lastIndexOf("_") + 1) : NaN);
    if (v === version && name !== undefined && Number.isInteger(pid) && pid !== process.pid && !alive(pid)) await drop(version, name);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === "EPERM";
  }
}

/** A port nothing listens on now, from a probe socket the OS gave one (the cluster takes it a moment later). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => probe.once("error", reject).listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

async function createDatabase(port: number): Promise<void> {
  const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query("CREATE DATABASE agentrt");
  } finally {
    await client.end();
  }
}
