/**
 * One-shot reads that create nothing beside the database file. SQLite reads a WAL-mode file through its
 * -wal and -shm files and creates them when they are missing: impossible in a read-only directory, and a
 * read-only connection leaves them behind, owned by the reader rather than by whoever writes the file. When
 * no -wal exists, no connection has the file open and everything committed is in the file itself: it is
 * read once into memory and queried there.
 * @module
 */
import { existsSync, readFileSync, statSync, type BigIntStats } from "node:fs";

/** Above this a file is opened in place (SQLite may then create -wal and -shm beside it, if it can). */
export const SNAPSHOT_MAX_BYTES = 512 * 1024 * 1024;

const MAGIC = Buffer.from("SQLite format 3\0", "latin1");
/** Header bytes 18 and 19: the file format's write and read versions, 2 for WAL, 1 for a rollback journal. */
const WRITE_VERSION = 18;
const READ_VERSION = 19;

function sameFile(a: BigIntStats, b: BigIntStats): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs;
}

/**
 * The bytes of a WAL-mode database to open in memory, or undefined when it must be opened in place: a -wal
 * exists (another process may have it open; its -wal and -shm are shared), the file is not a WAL-mode
 * SQLite file (then an in-place read-only open creates nothing), it is larger than {@link SNAPSHOT_MAX_BYTES},
 * or it changed while it was read (a writer came and went: read it in place, under SQLite's locks).
 */
export function readSnapshot(file: string): Buffer | undefined {
  const wal = `${file}-wal`;
  if (existsSync(wal)) return undefined;
  const before = statSync(file, { bigint: true });
  if (before.size > BigInt(SNAPSHOT_MAX_BYTES) || before.size < 100n) return undefined;
  const bytes = readFileSync(file);
  if (!bytes.subarray(0, MAGIC.length).equals(MAGIC) || bytes[WRITE_VERSION] !== 2 || bytes[READ_VERSION] !== 2) return undefined;
  if (existsSync(wal) || !sameFile(before, statSync(file, { bigint: true }))) return undefined;
  // A copy in memory has no WAL: read it as a rollback-journal file (the header is all that differs).
  bytes[WRITE_VERSION] = 1;
  bytes[READ_VERSION] = 1;
  return bytes;
}
