/**
 * One-shot reads where SQLite could not, or should not, create files beside the database. SQLite reads a
 * WAL-mode file through its -wal and -shm files and creates them when they are missing: impossible in a
 * read-only directory, and a read-only connection leaves them behind owned by the reader — a root `agentrt
 * status` would leave a -shm that the file's owner (the server) can then not write. In those two cases, when no
 * -wal exists, no connection has the file open and everything committed is in the file itself: it is read once
 * into memory and queried there. Otherwise the file is read in place, which costs nothing per byte of history.
 * @module
 */
import { accessSync, constants, existsSync, readFileSync, statSync, type BigIntStats } from "node:fs";
import { dirname } from "node:path";

/** Above this a file is opened in place (SQLite may then create -wal and -shm beside it, if it can). */
export const SNAPSHOT_MAX_BYTES = 512 * 1024 * 1024;

const MAGIC = Buffer.from("SQLite format 3\0", "latin1");
/** Header bytes 18 and 19: the file format's write and read versions, 2 for WAL, 1 for a rollback journal. */
const WRITE_VERSION = 18;
const READ_VERSION = 19;

/** True when an in-place read could create -wal/-shm files here and they would belong to the file's owner. */
function inPlaceIsHarmless(file: string, owner: number): boolean {
  const self = process.geteuid?.();
  if (self !== undefined && self !== owner) return false;
  try {
    accessSync(dirname(file), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function sameFile(a: BigIntStats, b: BigIntStats): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs;
}

/**
 * The bytes of a WAL-mode database to open in memory, or undefined when it is opened in place: reading in place
 * creates nothing foreign (the directory is writable and the file is this process user's), a -wal
 * exists (another process may have it open; its -wal and -shm are shared), the file is not a WAL-mode
 * SQLite file (then an in-place read-only open creates nothing), it is larger than {@link SNAPSHOT_MAX_BYTES},
 * or it changed while it was read (a writer came and went: read it in place, under SQLite's locks).
 */
export function readSnapshot(file: string): Buffer | undefined {
  const wal = `${file}-wal`;
  if (existsSync(wal)) return undefined;
  const before = statSync(file, { bigint: true });
  if (inPlaceIsHarmless(file, Number(before.uid))) return undefined;
  if (before.size > BigInt(SNAPSHOT_MAX_BYTES) || before.size < 100n) return undefined;
  const bytes = readFileSync(file);
  if (!bytes.subarray(0, MAGIC.length).equals(MAGIC) || bytes[WRITE_VERSION] !== 2 || bytes[READ_VERSION] !== 2) return undefined;
  if (existsSync(wal) || !sameFile(before, statSync(file, { bigint: true }))) return undefined;
  // A copy in memory has no WAL: read it as a rollback-journal file (the header is all that differs).
  bytes[WRITE_VERSION] = 1;
  bytes[READ_VERSION] = 1;
  return bytes;
}
