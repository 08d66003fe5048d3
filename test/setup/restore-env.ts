// Files of the shared-worker project run one after another in one process: whatever a file sets in process.env is
// put back after it, so no file sees another's settings (AGENTRT_CONFIG, simulated latency, an API key).
import { afterAll } from "vitest";

const before = { ...process.env };

afterAll(() => {
  for (const key of Object.keys(process.env)) if (!(key in before)) delete process.env[key];
  Object.assign(process.env, before);
});
