import { constants, deflateRawSync, inflateRawSync } from "node:zlib";
import { JsonPlusSerializer, type SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { StorageError } from "../../src/errors.js";

/** A value as the serde wrote it: its type tag and its bytes. */
export interface StoredValue {
  type: string;
  value: Uint8Array;
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
    const primitive = this.plainJsonPrimitive(value);
    if (primitive !== undefined) return primitive;
    const [type, bytes] = await this.serde.dumpsTyped(value);
    if (bytes.byteLength >= COMPRESS_FROM_BYTES) {
      const packed = deflateRawSync(bytes, { level: constants.Z_BEST_SPEED });
      if (packed.byteLength <= bytes.byteLength - bytes.byteLength / 8) return { type: DEFLATED + type, value: packed };
    }
    return { type, value: bytes };
  }

  /** JsonPlusSerializer writes a string, finite number, boolean or null exactly as JSON.stringify does. */
  private plainJsonPrimitive(value: unknown): StoredValue | undefined {
    if (!this.plainJson) return undefined;
    if (value === null || typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value)) || (typeof value === "string" && value.length < COMPRESS_FROM_BYTES / 4)) {
      return { type: "json", value: Buffer.from(JSON.stringify(value)) };
    }
    return undefined;
  }

  /** Serializes metadata as is (never deflated: SQL filters read it as JSON text). */
  async dumpPlain(value: unknown): Promise<StoredValue> {
    const [type, bytes] = await this.serde.dumpsTyped(value);
    return { type, value: bytes };
  }

  /**
   * The form of stored bytes that is cheapest to load again and again: JSON as
   * text when the default serde reads it (each load then skips the UTF-8 decode).
   */
  reusable(type: string, data: Buffer | string | null): Buffer | string | null {
    return this.plainJson && type === "json" && Buffer.isBuffer(data) ? data.toString("utf8") : data;
  }

  /** Deserializes bytes (or text) that `dump` or `dumpPlain` produced. */
  load(type: string, data: Uint8Array | string): unknown {
    if (type.startsWith(DEFLATED)) return this.load(type.slice(DEFLATED.length), inflateRawSync(data));
    if (this.plainJson && type === "json") {
      if (typeof data === "string") {
        if (!data.includes('"lc"')) return JSON.parse(data);
      } else {
        const buffer = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
        if (buffer.indexOf(LC_MARKER) === -1) return JSON.parse(buffer.toString("utf8"));
      }
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
}

/** Metadata goes to SQLite as JSON text when the serde made JSON, so `json_extract` can filter it. */
export function metadataColumn(stored: StoredValue): string | Uint8Array {
  return stored.type === "json" ? Buffer.from(stored.value.buffer, stored.value.byteOffset, stored.value.byteLength).toString("utf8") : stored.value;
}
