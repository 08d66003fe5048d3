import { describe, expect, it } from "vitest";
import { jsonLength } from "../../src/models/json-length.js";
import { seededRandom } from "../helpers/seeded-random.js";


const ATOMS: unknown[] = [
  "", "plain", "quote\"", "back\\slash", "tab\tnew\nline", "\u0000\u001f", "é 👋", "\ud800 lone", "\udc00", "\u2028\u2029",
  0, -0, 1.5, -1e21, 1e-7, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, true, false, null, undefined,
  () => 1, Symbol("s"), new Date(0), new Map([[1, 2]]), new Set([1]), { toJSON: () => "x\"y" }, { toJSON: 3 },
  Object.create(null) as object, Buffer.from("ab"), new Uint8Array([1, 2]), Object.assign(new String("boxed"), { k: 1 }),
];

function randomValue(next: () => number, depth: number): unknown {
  const pick = (n: number) => Math.floor(next() * n);
  if (depth > 3 || next() < 0.5) return ATOMS[pick(ATOMS.length)];
  if (next() < 0.5) {
    const array: unknown[] = Array.from({ length: pick(4) }, () => randomValue(next, depth + 1));
    if (next() < 0.1) array.length += 2; // holes
    return array;
  }
  const object: Record<string, unknown> = next() < 0.1 ? (Object.create(null) as Record<string, unknown>) : {};
  for (let n = pick(4); n > 0; n--) object[["a", "2", "k\"ey", "é", "1", "toJSON"][pick(6)]!] = randomValue(next, depth + 1);
  return object;
}

describe("jsonLength", () => {
  it("is the length of JSON.stringify on 5,000 random values", () => {
    const next = seededRandom(7);
    for (let run = 0; run < 5000; run++) {
      const value = randomValue(next, 0);
      let expected: number;
      try {
        expected = JSON.stringify(value)?.length ?? 0;
      } catch {
        continue; // a toJSON that is not a function is not called: never throws here
      }
      expect(jsonLength(value), JSON.stringify(value)).toBe(expected);
    }
  });

  it("measures tool calls and message parts as the scripted model's transcript writes them", () => {
    const calls = [["call_1", "restart_service", { service: "payments", n: [1, 2, { deep: null }] }], [undefined, "b", {}]];
    expect(jsonLength(calls)).toBe(JSON.stringify(calls).length);
    const parts = [{ type: "text", text: "héllo \"x\"" }, { type: "image_url", image_url: { url: "data:," } }];
    expect(jsonLength(parts)).toBe(JSON.stringify(parts).length);
  });

  it("hands what it does not walk to JSON.stringify: a cycle still throws, a bigint too", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => jsonLength(cycle)).toThrow(TypeError);
    expect(() => jsonLength({ n: 1n })).toThrow(TypeError);
  });

  it("gives JSON.stringify's length where a toJSON depends on its key or drops the value, and for functions with a toJSON", () => {
    const fn = Object.assign(() => 1, { toJSON: () => "f" });
    const cases: unknown[] = [
      { when: { toJSON: () => undefined } },
      [{ toJSON: () => undefined }],
      { abc: { toJSON: (key: string) => key } },
      [{ toJSON: (key: string) => key }],
      { fn },
      [fn],
      { nested: [{ deeper: { toJSON: () => Symbol("s") } }] },
    ];
    for (const value of cases) expect(jsonLength(value)).toBe(JSON.stringify(value).length);
  });
});

