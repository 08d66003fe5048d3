import { userInfo } from "node:os";
import { describe, expect, it } from "vitest";
import { displayDatabase, parseDatabaseTarget } from "../../src/db/database-target.js";

describe("parseDatabaseTarget", () => {
  it("treats a path or nothing as SQLite, and AGENTRT_DATABASE_URL as the default", () => {
    expect(parseDatabaseTarget("./x.db", {})).toEqual({ kind: "sqlite", path: "./x.db" });
    expect(parseDatabaseTarget(undefined, {})).toEqual({ kind: "sqlite", path: "./agentrt.db" });
    expect(parseDatabaseTarget(undefined, { AGENTRT_DATABASE_URL: "" })).toEqual({ kind: "sqlite", path: "./agentrt.db" });
    expect(parseDatabaseTarget(undefined, { AGENTRT_DATABASE_URL: "postgres://db.internal/prod", PGUSER: "postgres" })).toMatchObject({ kind: "postgres", server: "postgres@db.internal:5432/prod" });
    // A named target wins over the environment.
    expect(parseDatabaseTarget("./x.db", { AGENTRT_DATABASE_URL: "postgres://h/d" })).toEqual({ kind: "sqlite", path: "./x.db" });
  });

  it("takes the schema parameter out of the URL the driver sees", () => {
    const target = parseDatabaseTarget("postgresql://alice:s3cret@127.0.0.1:6543/test?schema=shop&sslmode=disable", {});
    expect(target).toEqual({
      kind: "postgres",
      connectionString: "postgresql://alice:s3cret@127.0.0.1:6543/test?sslmode=disable",
      schema: "shop",
      server: "alice@127.0.0.1:6543/test",
    });
    expect(parseDatabaseTarget("postgres://h/d?schema=s&options=-c%20synchronous_commit%3Doff", { PGUSER: "postgres" })).toEqual({
      kind: "postgres", connectionString: "postgres://postgres@h/d", schema: "s", server: "postgres@h:5432/d", options: "-c synchronous_commit=off",
    });
    expect(parseDatabaseTarget("postgres://127.0.0.1/test", { PGUSER: "postgres" })).toMatchObject({ schema: "public", server: "postgres@127.0.0.1:5432/test" });
  });

  it("names libpq's default user when the URL has none: PGUSER, else the OS user (the driver alone would need $USER)", () => {
    expect(parseDatabaseTarget("postgres://127.0.0.1/test", { PGUSER: "ops" })).toMatchObject({ connectionString: "postgres://ops@127.0.0.1/test", server: "ops@127.0.0.1:5432/test" });
    const osUser = userInfo().username;
    expect(parseDatabaseTarget("postgres://127.0.0.1/test", {})).toMatchObject({ connectionString: `postgres://${osUser}@127.0.0.1/test` });
    // A user in the URL wins.
    expect(parseDatabaseTarget("postgres://alice@127.0.0.1/test", { PGUSER: "ops" })).toMatchObject({ server: "alice@127.0.0.1:5432/test" });
  });

  it("refuses a schema that is not a plain identifier, without echoing the password", () => {
    const attempt = () => parseDatabaseTarget("postgres://bob:hunter2@h/d?schema=Robert');DROP", {});
    expect(attempt).toThrow(expect.objectContaining({ code: "DB_URL_INVALID" }));
    expect(attempt).toThrow(/bob@h:5432\/d: schema/);
    expect(attempt).not.toThrow(/hunter2/);
    expect(() => parseDatabaseTarget("postgres://bob:hunter2@[bad/d", {})).toThrow(/bob:\*\*\*@/);
    for (const secret of ["pa/ss", "p@ss:w/rd", "x:y"]) {
      expect(() => parseDatabaseTarget(`postgres://bob:${secret}@[bad/d`, {})).toThrow(/^not a valid PostgreSQL URL: postgres:\/\/bob:\*\*\*@\[bad\/d$/);
    }
  });

  it("displayDatabase masks a password given as a parameter too", () => {
    expect(displayDatabase("postgres://bob@h/d?password=hunter2&schema=s")).toBe("postgres://bob@h/d?password=***&schema=s");
  });

  it("displayDatabase masks a URL's password and leaves paths and password-less URLs alone", () => {
    expect(displayDatabase("postgres://bob:hunter2@h:5433/d?schema=s")).toBe("postgres://bob:***@h:5433/d?schema=s");
    expect(displayDatabase("postgresql://bob:p@ss:w/rd@h/d")).toBe("postgresql://bob:***@h/d");
    expect(displayDatabase("postgres://bob@h/d?schema=s")).toBe("postgres://bob@h/d?schema=s");
    expect(displayDatabase("./with:colon@sign.db")).toBe("./with:colon@sign.db");
  });

  it("refuses PostgreSQL's own schemas, which cannot hold agentrt's tables", () => {
    for (const schema of ["pg_catalog", "pg_toast", "pg_temp", "pg_anything", "information_schema"]) {
      expect(() => parseDatabaseTarget(`postgres://h/d?schema=${schema}`, { PGUSER: "postgres" })).toThrow(expect.objectContaining({ code: "DB_URL_INVALID", message: expect.stringContaining("reserved") }));
    }
    expect(parseDatabaseTarget("postgres://h/d?schema=pgx_ok", { PGUSER: "postgres" })).toMatchObject({ schema: "pgx_ok" });
  });

  it("refuses options that set the search path or the role in any of libpq's spellings, and keeps other settings", () => {
    const spellings = ["-c search_path=y", "-csearch_path=y", "--search_path=y", "--search-path=y", "-c SEARCH_PATH=y",
      "-c statement_timeout=0 -c search_path=y", "-c role=admin", "--session_authorization=admin"];
    for (const options of spellings) {
      expect(() => parseDatabaseTarget(`postgres://h/d?schema=x&options=${encodeURIComponent(options)}`, { PGUSER: "postgres" }), options)
        .toThrow(expect.objectContaining({ code: "DB_URL_INVALID", message: expect.stringMatching(/options may not set (search_path|role|session_authorization)/) }));
    }
    expect(parseDatabaseTarget(`postgres://h/d?schema=x&options=${encodeURIComponent("-c statement_timeout=0 -c application_name=rolex")}`, { PGUSER: "postgres" }))
      .toMatchObject({ schema: "x", options: "-c statement_timeout=0 -c application_name=rolex" });
  });
});
