// Whether a test can put a file system of its own under a child process: a tmpfs in a new mount namespace
// (`unshare -m`), which needs CAP_SYS_ADMIN (root, as on the development machines and in CI).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** True when this process may mount a tmpfs in a new mount namespace. */
export function canMountTmpfs(): boolean {
  const dir = mkdtempSync(join(tmpdir(), "agentrt-tmpfs-probe-"));
  try {
    return spawnSync("unshare", ["-m", "sh", "-c", 'mount -t tmpfs -o size=1m tmpfs "$1"', "sh", dir], { stdio: "ignore" }).status === 0;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
