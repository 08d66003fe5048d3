/**
 * Random hex for span ids, drawn from a pool of crypto random bytes: one system call (`randomFillSync`) per 4 KiB
 * instead of one per id — a run takes two (its root's id and its recorder's id prefix). The bytes are as random as
 * `randomBytes(n)`'s, so ids stay unique across processes.
 * @module
 */
import { randomFillSync } from "node:crypto";

const pool = Buffer.alloc(4096);
let offset = pool.length;

/** `bytes` fresh random bytes as `2 × bytes` hex characters (at most 64 bytes). */
export function randomHex(bytes: number): string {
  if (offset + bytes > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const hex = pool.toString("hex", offset, offset + bytes);
  offset += bytes;
  return hex;
}
