import { describe, expect, it } from "vitest";
import { readEnvelope, toolResultMessage } from "agentrt/tools";

describe("toolResultMessage", () => {
  it("wraps a result as external data with source, tool and call id", () => {
    const message = toolResultMessage({ tool: "get_doc", callId: "c7", status: "done", data: { text: "hi" } });
    expect(message.status).toBe("success");
    expect(message.tool_call_id).toBe("c7");
    expect(readEnvelope(message)).toMatchObject({ type: "external_data", source: "tool", tool: "get_doc", call_id: "c7", data: { text: "hi" } });
  });

  it("marks failures, denials and rejections as error results", () => {
    for (const status of ["failed", "denied", "rejected"] as const) {
      const message = toolResultMessage({ tool: "t", callId: "c", status, error: { code: "X", message: "why" } });
      expect(message.status).toBe("error");
      expect(readEnvelope(message)).toMatchObject({ status, error: { code: "X", message: "why" } });
      expect(readEnvelope(message)?.data).toBeUndefined();
    }
  });
});
