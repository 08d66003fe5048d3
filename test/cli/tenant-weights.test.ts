// Fair shares from the command line: `worker --tenant-weight NAME=W` and AGENTRT_TENANT_WEIGHTS; a malformed
// weight is refused in one line (exit 2) before the database is touched.
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { tenantWeightOptions } from "../../src/cli/tenant-weights.js";
import { cliOnDb } from "../helpers/cli.js";

let db = "";
beforeEach(() => {
  db = join(mkdtempSync(join(tmpdir(), "agentrt-tenant-weight-")), "runs.db");
});
const { cli } = cliOnDb(() => db);

describe("tenant weights", () => {
  it("worker --tenant-weight runs the queue by fair shares", async () => {
    await cli("run", "city_weather", "--message", "Weather in Paris", "--user", "acme", "--queue");
    const { code, out } = await cli("worker", "--once", "--tenant-weight", "acme=3", "--tenant-weight", "beta=1");
    expect(code).toBe(0);
    expect(out).toMatch(/claimed 1, finished \{"SUCCEEDED":1\}/);
  });

  it("refuses a malformed weight in one line, exit 2, and creates nothing", async () => {
    const { code, err } = await cli("worker", "--tenant-weight", "acme");
    expect(code).toBe(2);
    expect(err.trim().split("\n")).toHaveLength(1);
    expect(err).toMatch(/--tenant-weight expects NAME=WEIGHT/);
    expect(existsSync(db)).toBe(false);
  });

  it("reads AGENTRT_TENANT_WEIGHTS, the flags' weights over it; none means no fair shares", () => {
    expect(tenantWeightOptions([], {})).toEqual({});
    expect(tenantWeightOptions(["acme=5"], { AGENTRT_TENANT_WEIGHTS: "acme=2, beta=0.5" })).toEqual({ tenantWeights: { acme: 5, beta: 0.5 } });
    expect(() => tenantWeightOptions([], { AGENTRT_TENANT_WEIGHTS: "acme=x" })).toThrow(expect.objectContaining({ code: "BAD_INPUT" }));
  });
});
