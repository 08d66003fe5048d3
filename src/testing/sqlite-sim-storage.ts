/**
 * The simulated world's tables in the run database's SQLite file: every write in one IMMEDIATE transaction, so
 * processes sharing the file never perform the same keyed side effect twice.
 * @module
 */
import { immediateTransaction, migrate, type SqliteDatabase } from "../db/index.js";
import { SIM_SCHEMA } from "./sim-schema.js";
import { SimStateStore } from "./sim-state.js";
import type { SimStorage, SimStoredCall } from "./sim-storage.js";
import type { SimCallResult, SimEffectContext, SimSnapshot, SimSystem } from "./sim-world.js";

/** {@link SimStorage} on a SQLite connection. */
export class SqliteSimStorage implements SimStorage {
  private readonly store: SimStateStore;

  private constructor(readonly db: SqliteDatabase) {
    this.store = new SimStateStore(db);
  }

  /** Creates or migrates the `sim_*` tables of `db`. */
  static open(db: SqliteDatabase): SqliteSimStorage {
    migrate(db, SIM_SCHEMA);
    return new SqliteSimStorage(db);
  }

  get open(): boolean {
    return this.db.open;
  }

  async countAttempt(tool: string, faults: number): Promise<number> {
    return immediateTransaction(this.db, () => {
      const attempt = this.store.bump(tool, "attempts");
      if (attempt <= faults) this.store.bump(tool, "failures");
      return attempt;
    })();
  }

  async perform<Result>(call: SimStoredCall, effect: (ctx: SimEffectContext) => Result): Promise<SimCallResult<Result>> {
    return immediateTransaction(this.db, (): SimCallResult<Result> => {
      this.store.ensureSeeded(call.system);
      const key = call.sideEffect ? call.idempotencyKey : undefined;
      if (key !== undefined) {
        const stored = this.store.findOperation<Result>(call.tool, key);
        if (stored !== undefined) return { ...stored, replayed: true };
      }
      const operationId = call.sideEffect ? this.store.nextOperationId(call.system.name) : undefined;
      const result = effect({ state: this.store.stateOf(call.system), operationId });
      if (operationId !== undefined) {
        this.store.recordOperation({ tool: call.tool, key: key ?? operationId, system: call.system.name, operationId, result });
      }
      this.store.bump(call.tool, "performed");
      return { result, operationId, replayed: false };
    })();
  }

  async register(system: SimSystem): Promise<void> {
    immediateTransaction(this.db, () => this.store.ensureSeeded(system))();
  }

  async snapshot(): Promise<SimSnapshot> {
    return this.store.snapshot();
  }

  async reset(): Promise<void> {
    immediateTransaction(this.db, () => this.store.clear())();
  }
}
