/**
 * Run and thread ids: a 48-bit millisecond time and 80 random bits in
 * Crockford base32, so ids sort by creation time and never collide across
 * processes.
 * @module
 */
import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

let lastTime = -1;
let lastRandom: number[] = [];

function encodeTime(ms: number): string {
  let out = "";
  let rest = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET.charAt(rest % 32) + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

// One system call per 256 ids instead of one per id.
let pool = Buffer.alloc(0);
let poolOffset = 0;

function freshRandom(): number[] {
  if (poolOffset + 16 > pool.length) {
    pool = randomBytes(4096);
    poolOffset = 0;
  }
  const digits = [...pool.subarray(poolOffset, poolOffset + 16)].map((byte) => byte % 32);
  poolOffset += 16;
  return digits;
}

// Within one millisecond the random part is incremented, so ids made by one
// process stay strictly increasing (ULID's monotonic rule).
function nextRandom(): number[] {
  const digits = [...lastRandom];
  for (let i = digits.length - 1; i >= 0; i--) {
    const digit = digits[i] ?? 0;
    if (digit < 31) {
      digits[i] = digit + 1;
      return digits;
    }
    digits[i] = 0;
  }
  return freshRandom();
}

/** A new time-ordered id body (26 characters) without a prefix. */
export function newSortableId(now: number = Date.now()): string {
  if (now === lastTime) {
    lastRandom = nextRandom();
  } else {
    lastTime = now;
    lastRandom = freshRandom();
  }
  return encodeTime(now) + lastRandom.map((d) => ALPHABET.charAt(d)).join("");
}

/** A new run id, `run_` + a sortable id. */
export function newRunId(now?: number): string {
  return `run_${newSortableId(now)}`;
}

/** The default thread id of a run: the run id's body with a `thread_` prefix. */
export function defaultThreadId(runId: string): string {
  return `thread_${runId.startsWith("run_") ? runId.slice(4) : runId}`;
}
