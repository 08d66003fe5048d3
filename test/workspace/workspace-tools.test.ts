import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolContext } from "../../src/tools/define-tool.js";
import { workspaceTools } from "../../src/workspace/workspace-tools.js";

function ctx(runId: string): ToolContext {
  return {
    runId,
    threadId: `thread-${runId}`,
    toolCallId: "call_1",
    idempotencyKey: `${runId}:call_1:1`,
    user: "alice",
    attempt: 1,
    signal: new AbortController().signal,
    db: undefined,
    setExternalOperationId: () => undefined,
  };
}

describe("workspace tools", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "agentrt-ws-tools-"));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("write, list and read within the calling run's workspace", async () => {
    const { workspaceRead, workspaceWrite, workspaceList } = workspaceTools({ rootDir: root });
    expect(workspaceWrite.risk).toBe("write");
    expect(workspaceRead.risk).toBe("read");
    const args = workspaceWrite.schema.parse({ path: "draft/answer.md", content: "42" });
    expect(await workspaceWrite.execute(args, ctx("run_1"))).toEqual({ path: "draft/answer.md", bytes: 2 });
    expect(await workspaceRead.execute({ path: "draft/answer.md" }, ctx("run_1"))).toEqual({ path: "draft/answer.md", content: "42" });
    expect(await workspaceList.execute({ recursive: true }, ctx("run_1"))).toEqual({
      entries: [
        { path: "draft", type: "directory", size: 0 },
        { path: "draft/answer.md", type: "file", size: 2 },
      ],
    });
    await expect(workspaceRead.execute({ path: "draft/answer.md" }, ctx("run_2"))).rejects.toMatchObject({
      code: "WORKSPACE_FILE_NOT_FOUND",
    });
  });

  it("refuse paths outside with a stable code", async () => {
    const { workspaceRead, workspaceWrite } = workspaceTools({ rootDir: root });
    await expect(workspaceWrite.execute({ path: "../run_2/x", content: "x" }, ctx("run_1"))).rejects.toMatchObject({
      code: "PATH_OUTSIDE_WORKSPACE",
    });
    await expect(workspaceRead.execute({ path: "/etc/passwd" }, ctx("run_1"))).rejects.toMatchObject({
      code: "PATH_OUTSIDE_WORKSPACE",
    });
    expect(workspaceRead.schema.safeParse({ path: "" }).success).toBe(false);
  });
});
