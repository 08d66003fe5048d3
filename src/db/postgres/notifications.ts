/**
 * LISTEN/NOTIFY for one process on one PostgreSQL database: a single dedicated connection (not a pooled one, which
 * would drop its LISTENs when released) carries every channel this process listens to. When that connection is lost
 * it reconnects with backoff, listens again, and tells every listener that notifications may have been missed
 * (`onGap`), so each looks at the database once instead of waiting for the next event.
 * @module
 */
import { createHash } from "node:crypto";
import pg from "pg";

/** One listener of one channel. */
export interface NotificationListener {
  /** A notification's payload (NOTIFY's second argument; "" when none). Must not throw. */
  onMessage(payload: string): void;
  /** The connection was lost and is back: notifications sent meanwhile are gone, look again. Must not throw. */
  onGap?(): void;
}

/** How the listening connection is opened: the pool's own settings, reused. */
export interface NotificationConnection {
  connectionString: string;
  /** Server settings (`-c …`) as the pool sends them. */
  options?: string;
  connectTimeoutMs: number;
}

/** First reconnect delay; doubles per failed attempt up to {@link MAX_RECONNECT_MS}. */
const FIRST_RECONNECT_MS = 100;
const MAX_RECONNECT_MS = 5000;

/**
 * The channel name of `topic` for one schema: fixed length whatever the schema's (a channel is an identifier of at
 * most 63 bytes), and distinct per schema so test schemas and tenants sharing a server never hear each other. The
 * same name is computed in SQL as `'agentrt_' || <topic> || '_' || left(md5(<schema>), 16)`.
 */
export function notificationChannel(schema: string, topic: string): string {
  if (!/^[a-z][a-z0-9]{0,15}$/.test(topic)) throw new TypeError(`notification topic must be a short lower-case word, got ${JSON.stringify(topic)}`);
  return `agentrt_${topic}_${createHash("md5").update(schema).digest("hex").slice(0, 16)}`;
}

/** The LISTEN connection of one process to one database, shared by all its channels. */
export class PostgresNotifications {
  readonly #connection: NotificationConnection;
  readonly #channels = new Map<string, Set<NotificationListener>>();
  #client: pg.Client | undefined;
  #connecting: Promise<void> | undefined;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #reconnectMs = FIRST_RECONNECT_MS;
  #closed = false;
  /** Set once a connection was up: a later one follows a loss, so listeners hear a gap. */
  #hadClient = false;

  constructor(connection: NotificationConnection) {
    this.#connection = connection;
  }

  /**
   * Listens to `channel` (see {@link notificationChannel}) until the returned function is called. Resolves once
   * the LISTEN is in effect, so a NOTIFY committed after it is heard; when the server is unreachable it still
   * resolves (the listener hears a gap once the connection is back) and never throws.
   */
  async listen(channel: string, listener: NotificationListener): Promise<() => Promise<void>> {
    let set = this.#channels.get(channel);
    const fresh = set === undefined;
    if (set === undefined) {
      set = new Set();
      this.#channels.set(channel, set);
    }
    set.add(listener);
    if (fresh && this.#client !== undefined) await this.#send(`LISTEN ${quote(channel)}`);
    else if (this.#client === undefined) await this.#ensureConnected();
    return async () => {
      const current = this.#channels.get(channel);
      if (current === undefined || !current.delete(listener) || current.size > 0) return;
      this.#channels.delete(channel);
      await this.#send(`UNLISTEN ${quote(channel)}`);
    };
  }

  /** True while the listening connection is up. */
  get connected(): boolean {
    return this.#client !== undefined;
  }

  /** Ends the connection; later listens do nothing. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#reconnectTimer);
    this.#channels.clear();
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  /** Sends a LISTEN/UNLISTEN on the live connection; a failure is the connection's loss, handled by its 'error'. */
  async #send(statement: string): Promise<void> {
    await this.#client?.query(statement).catch(() => undefined);
  }

  #ensureConnected(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#connecting ??= this.#connect().finally(() => (this.#connecting = undefined));
    return this.#connecting;
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.#connection.connectionString,
      ...(this.#connection.options === undefined ? {} : { options: this.#connection.options }),
      connectionTimeoutMillis: this.#connection.connectTimeoutMs,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      application_name: "agentrt-listen",
    });
    client.on("error", () => this.#lost(client));
    client.on("end", () => this.#lost(client));
    client.on("notification", (message) => this.#deliver(message.channel, message.payload ?? ""));
    let channels: string[] = [];
    try {
      await client.connect();
      channels = [...this.#channels.keys()];
      if (channels.length > 0) await client.query(channels.map((c) => `LISTEN ${quote(c)}`).join("; "));
    } catch {
      await client.end().catch(() => undefined);
      this.#scheduleReconnect();
      return;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    const reconnected = this.#reconnectMs !== FIRST_RECONNECT_MS || this.#hadClient;
    this.#client = client;
    this.#hadClient = true;
    this.#reconnectMs = FIRST_RECONNECT_MS;
    // A channel added while the LISTENs above were under way waited for this connection without being in them.
    const missed = [...this.#channels.keys()].filter((channel) => !channels.includes(channel));
    if (missed.length > 0) await this.#send(missed.map((c) => `LISTEN ${quote(c)}`).join("; "));
    if (reconnected) this.#gap();
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    void client.end().catch(() => undefined);
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#reconnectTimer !== undefined) return;
    const delay = this.#reconnectMs * (0.5 + Math.random() / 2);
    this.#reconnectMs = Math.min(MAX_RECONNECT_MS, this.#reconnectMs * 2);
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      void this.#ensureConnected();
    }, delay);
    // A process waits for its work, never for a reconnect of its notifications.
    this.#reconnectTimer.unref();
  }

  #deliver(channel: string, payload: string): void {
    for (const listener of [...(this.#channels.get(channel) ?? [])]) {
      try {
        listener.onMessage(payload);
      } catch {
        // A listener must not throw; one that does must not stop the others.
      }
    }
  }

  #gap(): void {
    for (const set of this.#channels.values()) {
      for (const listener of [...set]) {
        try {
          listener.onGap?.();
        } catch {
          // As in #deliver.
        }
      }
    }
  }
}

function quote(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}
