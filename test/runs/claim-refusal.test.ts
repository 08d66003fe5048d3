import { describe, expect, it } from "vitest";
import { ClaimRefusals, claimPauseMs, transientStorageFailure } from "../../src/runs/claim-refusal.js";
import { StorageError } from "../../src/errors.js";

describe("claimPauseMs", () => {
  it("doubles from 100 ms up to 5 s, jittered within the upper half of each step", () => {
    const whole = Array.from({ length: 9 }, (_, i) => claimPauseMs(i + 1, () => 1));
    expect(whole).toEqual([100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000]);
    const half = Array.from({ length: 9 }, (_, i) => claimPauseMs(i + 1, () => 0));
    expect(half).toEqual([50, 100, 200, 400, 800, 1600, 2500, 2500, 2500]);
    expect(claimPauseMs(1000, () => 1)).toBe(5000);
  });
});

describe("ClaimRefusals", () => {
  it("reports the first refusal of a series, pauses, and starts again after an answer", () => {
    const refusals = new ClaimRefusals(() => 1);
    expect(refusals.msLeft(0)).toBe(0);
    expect(refusals.refused(1000)).toBe(true);
    expect(refusals.msLeft(1000)).toBe(100);
    expect(refusals.refused(1100)).toBe(false);
    expect(refusals.msLeft(1100)).toBe(200);
    expect(refusals.msLeft(1400)).toBe(0);
    refusals.answered();
    expect(refusals.refused(2000)).toBe(true);
    expect(refusals.msLeft(2000)).toBe(100);
  });
});

describe("transientStorageFailure", () => {
  it("takes a full disk and a lost or unreachable server, raw or as a cause, and nothing else", () => {
    const lost = new StorageError("DB_CONNECTION_LOST", "x: connection to PostgreSQL lost");
    expect(transientStorageFailure(lost)).toBe(lost);
    expect(transientStorageFailure(new Error("ledger write failed", { cause: lost }))).toBe(lost);
    expect(transientStorageFailure(new StorageError("DB_UNREACHABLE", "x: cannot connect"))).toMatchObject({ code: "DB_UNREACHABLE" });
    expect(transientStorageFailure(Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" }))).toMatchObject({ code: "STORAGE_FULL" });
    expect(transientStorageFailure(new StorageError("DB_AUTH_FAILED", "x: authentication failed"))).toBeUndefined();
    expect(transientStorageFailure(new StorageError("DB_SCHEMA_TOO_NEW", "x"))).toBeUndefined();
    expect(transientStorageFailure(new Error("plain"))).toBeUndefined();
  });
});
