import { describe, expect, it } from "vitest";
import { UserInputError } from "../../src/errors.js";
import { simFaults, simLatencyMs } from "../../src/testing/sim-env.js";

describe("simulated world environment", () => {
  it("reads latency, 0 when unset", () => {
    expect(simLatencyMs({})).toBe(0);
    expect(simLatencyMs({ AGENTRT_SIM_LATENCY_MS: " 250 " })).toBe(250);
    expect(() => simLatencyMs({ AGENTRT_SIM_LATENCY_MS: "-1" })).toThrow(UserInputError);
    expect(() => simLatencyMs({ AGENTRT_SIM_LATENCY_MS: "soon" })).toThrow(/AGENTRT_SIM_LATENCY_MS/);
  });

  it("parses tool:count lists", () => {
    expect(simFaults({})).toEqual(new Map());
    expect(simFaults({ AGENTRT_SIM_FAULTS: "get_weather:2, rollback_deployment:1,get_weather:1" })).toEqual(
      new Map([["get_weather", 3], ["rollback_deployment", 1]]),
    );
    expect(() => simFaults({ AGENTRT_SIM_FAULTS: "get_weather" })).toThrow(/tool:count/);
    expect(() => simFaults({ AGENTRT_SIM_FAULTS: "get_weather:-1" })).toThrow(UserInputError);
  });
});
