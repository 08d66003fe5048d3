/**
 * The simulated world with every scenario system registered, so a snapshot
 * shows each system's state even before its first call.
 * @module
 */
import { openWorld as openBareWorld, type OpenWorldOptions, type SimSystem, type SimWorld } from "agentrt/testing";
import { deploySystem } from "./deploy.js";
import { helpdeskSystem } from "./documents.js";
import { logsSystem } from "./logs.js";
import { messagingSystem } from "./messaging.js";
import { ordersSystem } from "./orders.js";
import { weatherSystem } from "./weather.js";

/** Every simulated system behind the scenario graphs. */
export const SIM_SYSTEMS: readonly SimSystem[] = [deploySystem, logsSystem, ordersSystem, messagingSystem, weatherSystem, helpdeskSystem];

/**
 * Opens the world on a connection or file (default `AGENTRT_DB` or `./agentrt.db`)
 * and seeds every system.
 * @example
 * const { calls } = await (await openWorld({ path: "./agentrt.db" })).snapshot();
 */
export async function openWorld(options: OpenWorldOptions = {}): Promise<SimWorld> {
  const world = openBareWorld(options);
  for (const system of SIM_SYSTEMS) await world.register(system);
  return world;
}
