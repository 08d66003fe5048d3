import { describe, expect, it } from "vitest";
import { StorageError } from "../../src/errors.js";
import { Scheduler, writeWhileStorageRefuses } from "../../src/runs/index.js";
import { freshStore } from "./helpers.js";

// Longer than the largest pause between tries (2 s), so only the deadline can end the loop.
const LEASE = 10_000;
const full = () => Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });

describe("writeWhileStorageRefuses", () => {
  it("gives up within the lease as it stood at the first refusal, though a heartbeat keeps renewing it", async () => {
    const { store, clock } = freshStore();
    await store.create({ graphId: "g" });
    const { lease } = (await new Scheduler(store).claimNext({ workerId: "A", leaseMs: LEASE }))!;
    let tries = 0;
    // Each refused write is followed by a renewal that fits (a small UPDATE), as a heartbeat beside it would do.
    const write = async () => {
      tries++;
      clock.advance(3000);
      await lease.renew();
      throw full();
    };
    const outcome = await writeWhileStorageRefuses(lease, write).then(() => undefined, (error: unknown) => error);
    expect(outcome).toBeInstanceOf(StorageError);
    expect(outcome).toMatchObject({ code: "STORAGE_FULL" });
    expect(tries).toBeGreaterThan(1);
    expect(tries).toBeLessThan(6);
  });

  it("returns the write's result once the disk has room again", async () => {
    const { store } = freshStore();
    await store.create({ graphId: "g" });
    const { lease } = (await new Scheduler(store).claimNext({ workerId: "A", leaseMs: 60_000 }))!;
    let tries = 0;
    const heard: string[] = [];
    const result = await writeWhileStorageRefuses(lease, () => {
      if (++tries < 3) throw full();
      return "written";
    }, (failure) => heard.push(failure.code));
    expect(result).toBe("written");
    expect(heard).toEqual(["STORAGE_FULL"]);
  });
});
