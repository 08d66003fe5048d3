import { constants, deflateRawSync, inflateRawSync } from "node:zlib";
import { JsonPlusSerializer, type SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { StorageError } from "../../src/errors.js";

/**
 * A value as the serde wrote it: its type tag and its bytes. JSON the default serde would write
 * is kept as text (the same bytes, UTF-8): SQLite stores it as TEXT (PostgreSQL as BYTEA), and reading it back skips a
 * Buffer copy and a UTF-8 decode.
 */
export interface StoredValue {
  type: string;
  value: Uint8Array | string;
}

const LC_MARKER = Buffer.from('"lc"');
/** Type prefix of a value stored deflated. */
const DEFLATED = "z:";
/**
 * Codec format 1 (and 0, the same, from before formats were named) tags a value `[z:]<serde tag>`. A later
 * format marks each value it writes `f<N>:` — values outlive the checkpoint that wrote them, so the mark is
 * on the value — and this code refuses such a value instead of handing bytes it cannot read to the serde.
 */
const LATER_FORMAT = /^f(\d+):/;
/** Values at least this big are deflated when that saves an eighth or more. */
const COMPRESS_FROM_BYTES = 1024;

/**
 * Serialization through the saver's `serde`, with one shortcut: the default
 * JsonPlusSerializer only revives objects that carry an `lc` key, so JSON
 * without the `"lc"` token parses with plain `JSON.parse` instead of its
 * async, per-node reviver. Any other serde is always called.
 *
 * Channel values and writes of 1 KB or more are stored deflated (fastest
 * level): message histories are text, and on SQLite's 4 KB pages a 2 KB row
 * wastes almost half a page when stored as is.
 */
export class Codec {
  private readonly plainJson: boolean;

  constructor(private readonly serde: SerializerProtocol) {
    this.plainJson = Object.getPrototypeOf(serde) === JsonPlusSerializer.prototype;
  }

  /** Serializes one value with the serde, deflating it when large and compressible. */
  async dump(value: unknown): Promise<StoredValue> {
    return this.dumpNow(value) ?? this.packed(await this.serde.dumpsTyped(value));
  }

  /**
   * {@link dump} without a promise when the value is plain JSON and the serde the default one,
   * whose output for such a value is exactly `JSON.stringify`'s; undefined when the serde must run.
   */
  dumpNow(value: unknown): StoredValue | undefined {
    const text = this.plainJson ? plainJsonText(value) : undefined;
    if (text === undefined) return undefined;
    // Length in UTF-16 units is at most the UTF-8 length: below the threshold, no byte count is needed.
    if (text.length * 3 < COMPRESS_FROM_BYTES) return { type: "json", value: text };
    return this.packed(["json", Buffer.from(text, "utf8")], text);
  }

  /**
   * The value's JSON text when it may live inline in its checkpoint row (see the SQLite schema v3): plain JSON the
   * default serde would write as is, of at most `maxChars` UTF-16 units; else what {@link dumpNow} gives.
   */
  dumpInlineNow(value: unknown, maxChars: number): string | StoredValue | undefined {
    const text = this.plainJson ? plainJsonText(value) : undefined;
    if (text === undefined) return undefined;
    if (text.length <= maxChars) return text;
    if (text.length * 3 < COMPRESS_FROM_BYTES) return { type: "json", value: text };
    return this.packed(["json", Buffer.from(text, "utf8")], text);
  }

  /** A serde result, deflated when large and compressible; `text` is its JSON as a string when known. */
  private packed([type, bytes]: [string, Uint8Array], text?: string): StoredValue {
    if (bytes.byteLength >= COMPRESS_FROM_BYTES) {
      const packed = deflateRawSync(bytes, { level: constants.Z_BEST_SPEED });
      if (packed.byteLength <= bytes.byteLength - bytes.byteLength / 8) return { type: DEFLATED + type, value: packed };
    }
    return { type, value: text ?? bytes };
  }

  /** Serializes metadata as is (never deflated: SQL filters read it as JSON text). */
  async dumpPlain(value: unknown): Promise<StoredValue> {
    return this.dumpPlainNow(value) ?? this.asStored(await this.serde.dumpsTyped(value));
  }

  /** {@link dumpPlain} without a promise when the value is plain JSON and the serde the default one. */
  dumpPlainNow(value: unknown): StoredValue | undefined {
    const text = this.plainJson ? plainJsonText(value) : undefined;
    return text === undefined ? undefined : { type: "json", value: text };
  }

  private asStored([type, value]: [string, Uint8Array]): StoredValue {
    return { type, value };
  }

  /**
   * The form of stored bytes that is cheapest to load again and again: JSON as
   * text when the default serde reads it (each load then skips the UTF-8 decode).
   */
  reusable(type: string, data: Buffer | string | null): Buffer | string | null {
    return this.plainJson && type === "json" && Buffer.isBuffer(data) ? data.toString("utf8") : data;
  }

  /**
   * Deserializes bytes (or text) that `dump` or `dumpPlain` produced; JSON the default serde must revive goes first
   * to `snapshot` (see snapshot-items.ts), which answers undefined for a document it leaves to the serde.
   */
  load(type: string, data: Uint8Array | string, snapshot?: SnapshotReviver): unknown {
    if (type.startsWith(DEFLATED)) return this.load(type.slice(DEFLATED.length), inflateRawSync(data), snapshot);
    if (this.plainJson && type === "json") {
      if (typeof data === "string") {
        if (!data.includes('"lc"')) return JSON.parse(data);
      } else {
        const buffer = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
        if (buffer.indexOf(LC_MARKER) === -1) return JSON.parse(buffer.toString("utf8"));
      }
      if (snapshot !== undefined) return this.loadSnapshot(typeof data === "string" ? data : new TextDecoder().decode(data), snapshot);
    }
    if (type === "bytes" && Buffer.isBuffer(data)) {
      // Callers stored a Uint8Array; hand back one, not a Buffer view of SQLite's memory.
      return new Uint8Array(data);
    }
    const later = LATER_FORMAT.exec(type);
    if (later !== null) {
      throw new StorageError("DB_SCHEMA_TOO_NEW", `a checkpoint value is in codec format ${later[1]}, newer than this agentrt knows (1)`, {
        details: { version: Number(later[1]), known: 1 },
      });
    }
    // A promise only when the serde itself has to revive objects; callers await the result either way.
    return this.serde.loadsTyped(type, data);
  }

  /** Revives JSON `text` through `snapshot` when it takes it, else through the serde. */
  private async loadSnapshot(text: string, snapshot: SnapshotReviver): Promise<unknown> {
    const revived = await snapshot(text, (itemText) => this.serde.loadsTyped("json", itemText));
    return revived !== undefined ? revived : this.serde.loadsTyped("json", text);
  }
}

/** Revives a JSON document the default serde wrote, reviving parts through `reviveItem`; undefined: not its kind. */
export type SnapshotReviver = (text: string, reviveItem: (itemText: string) => Promise<unknown>) => Promise<unknown>;

/** Metadata goes to SQLite as JSON text when the serde made JSON, so `json_extract` can filter it. */
export function metadataColumn(stored: StoredValue): string | Uint8Array {
  const { type, value } = stored;
  if (type !== "json" || typeof value === "string") return value;
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("utf8");
}

/** Deeper trees go to the serde: it also handles cycles, which never end this walk otherwise. */
const MAX_PLAIN_DEPTH = 64;

/**
 * `JSON.stringify(value)` when that is exactly what JsonPlusSerializer writes for it: a tree of
 * plain objects, arrays, strings, numbers, booleans and null. Anything its replacer would change
 * (undefined, array holes, class instances, Uint8Array, Map, Set, Date, an object that looks
 * like a `Send`, a cycle) returns undefined and goes to the serde.
 */
export function plainJsonText(value: unknown): string | undefined {
  return isPlainJson(value, 0) ? JSON.stringify(value) : undefined;
}

function isPlainJson(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case "string":
    case "number":
    case "boolean":
      return true;
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth >= MAX_PLAIN_DEPTH) return false;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return false;
    for (let i = 0; i < value.length; i++) {
      // A hole reads as undefined, which the serde writes as a record.
      if (!isPlainJson(value[i], depth + 1)) return false;
    }
    return true;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  const record = value as Record<string, unknown>;
  if (record.lg_name === "Send") return false;
  for (const key in record) {
    if (!Object.prototype.hasOwnProperty.call(record, key)) return false;
    if (!isPlainJson(record[key], depth + 1)) return false;
  }
  return true;
}
