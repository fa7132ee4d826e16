/**
 * The never-throw readers every history converter uses (src/protocols/stored-history.ts), on the values a
 * JSON reader, a structured clone or a buggy host can leave in a stored record.
 */
import { describe, expect, it } from "vitest";
import {
  clipped,
  isJsonSafe,
  safeString,
  shown,
  textOf,
  toolArgumentsOf,
  toolArgumentsTextOf,
} from "../../src/protocols/stored-history.ts";

const noProto = () => Object.create(null) as Record<string, unknown>;
const cycle = () => {
  const value: Record<string, unknown> = { a: 1 };
  value.self = value;
  return value;
};

describe("stored-history readers", () => {
  it("textOf prints numbers, BigInts and booleans; other non-text is left out with a warning", () => {
    const warnings: string[] = [];
    expect([textOf("a", 0, warnings), textOf(undefined, 0, warnings), textOf(null, 0, warnings)]).toEqual([
      "a",
      "",
      "",
    ]);
    expect([
      textOf(1.5, 0, warnings),
      textOf(12345678901234567890n, 0, warnings),
      textOf(false, 0, warnings),
    ]).toEqual(["1.5", "12345678901234567890", "false"]);
    expect(warnings).toEqual([]);
    for (const value of [Symbol("s"), noProto(), ["a"], { text: "a" }])
      expect(textOf(value, 3, warnings)).toBe("");
    expect(warnings).toEqual(Array(4).fill("messages[3]: content is not text; left out"));
  });

  it("safeString never throws, even on objects that cannot be turned into text", () => {
    expect(safeString(noProto())).toBe("[object Object]");
    expect(safeString(Symbol("s"))).toBe("Symbol(s)");
    expect(
      safeString({
        toString() {
          throw new Error("no");
        },
      }),
    ).toBe("[object Object]");
    expect(safeString(10n)).toBe("10");
  });

  it("shown quotes any value for a warning: JSON, 10n for a BigInt, String() otherwise, cut to 80", () => {
    expect(shown("bot")).toBe('"bot"');
    expect(shown(10n)).toBe("10n");
    expect(shown(noProto())).toBe("{}");
    expect(shown(undefined)).toBe("undefined");
    expect(shown(Symbol("s"))).toBe("Symbol(s)");
    expect(shown(cycle())).toBe("[object Object]");
    expect(shown("x".repeat(10_000))).toBe(`"${"x".repeat(79)}…`);
    expect(clipped("short")).toBe("short");
    expect(clipped("y".repeat(81))).toBe(`${"y".repeat(80)}…`);
  });

  it("isJsonSafe: false for BigInt, cycles and nesting past the stack", () => {
    let deep: unknown = {};
    for (let level = 0; level < 1_000_000; level++) deep = [deep];
    expect([isJsonSafe({ a: [1, "b", null] }), isJsonSafe(noProto()), isJsonSafe(Number.NaN)]).toEqual([
      true,
      true,
      true,
    ]);
    expect([isJsonSafe({ n: 1n }), isJsonSafe(cycle()), isJsonSafe(deep), isJsonSafe(undefined)]).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  it("toolArgumentsOf: arguments JSON cannot carry fall back to argumentsText, else {}, with a warning", () => {
    const warnings: string[] = [];
    expect(toolArgumentsOf({ arguments: { a: 1 } }, "w", warnings)).toEqual({ a: 1 });
    expect(toolArgumentsOf({ arguments: { n: 1n }, argumentsText: '{"n":1}' }, "w", warnings)).toEqual({
      n: 1,
    });
    expect(toolArgumentsOf({ arguments: cycle() }, "w", warnings)).toEqual({});
    expect(toolArgumentsOf({ arguments: "{bad" }, "w", warnings)).toEqual({});
    expect(toolArgumentsOf({ arguments: 5 }, "w", warnings)).toEqual({});
    expect(warnings).toEqual([
      "w: arguments hold a value JSON cannot carry (a BigInt, a cycle); sent as parsed from argumentsText",
      "w: arguments hold a value JSON cannot carry (a BigInt, a cycle); sent as {}",
      "w: arguments are not a JSON object; sent as {}",
      "w: arguments are not an object; sent as {}",
    ]);
  });

  it("toolArgumentsTextOf: the original text for this protocol's own calls; never throws on BigInt", () => {
    const truncated = '{"city": "Par';
    expect(toolArgumentsTextOf({ arguments: {}, argumentsText: truncated }, true)).toBe(truncated);
    expect(toolArgumentsTextOf({ arguments: { city: "Paris" }, argumentsText: truncated }, false)).toBe(
      '{"city":"Paris"}',
    );
    expect(toolArgumentsTextOf({ arguments: '{"a":1}' }, false)).toBe('{"a":1}');
    expect(toolArgumentsTextOf({ arguments: { n: 1n }, argumentsText: truncated }, false)).toBe(truncated);
    expect(toolArgumentsTextOf({ arguments: { n: 1n } }, false)).toBe("{}");
    expect(toolArgumentsTextOf({ arguments: [1] }, false)).toBe("{}");
  });
});
