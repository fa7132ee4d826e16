/**
 * The pieces of an eval report: the Wilson interval, the exact sign test, nearest-rank percentiles, the
 * JSON Schema subset and the declarative checkers.
 */
import {
  checkAnswer,
  type EvalAnswer,
  jsonSchemaIssues,
  percentile,
  signTest,
  wilsonInterval,
} from "modelwire/eval";
import { describe, expect, it } from "vitest";

const four = (interval: { low: number; high: number }) => [
  Number(interval.low.toFixed(4)),
  Number(interval.high.toFixed(4)),
];

describe("wilsonInterval", () => {
  it("gives the 95 % Wilson score interval (values from the formula, computed apart)", () => {
    expect(four(wilsonInterval(7, 10))).toEqual([0.3968, 0.8922]);
    expect(four(wilsonInterval(5, 5))).toEqual([0.5655, 1]);
    expect(four(wilsonInterval(0, 5))).toEqual([0, 0.4345]);
    expect(four(wilsonInterval(16, 20))).toEqual([0.584, 0.9193]);
    expect(four(wilsonInterval(3, 4))).toEqual([0.3006, 0.9544]);
    expect(wilsonInterval(0, 0)).toEqual({ low: 0, high: 1 });
    // 90 %: z = 1.6449.
    expect(four(wilsonInterval(7, 10, 1.6448536269514722))).toEqual([0.4417, 0.8731]);
  });

  it("refuses impossible counts, naming them", () => {
    expect(() => wilsonInterval(6, 5)).toThrow("passes must be a whole number from 0 to n (5), got 6");
    expect(() => wilsonInterval(1, -1)).toThrow("n must be a whole number ≥ 0, got -1");
  });
});

describe("signTest", () => {
  it("is the two-sided exact binomial tail at ½", () => {
    expect(signTest(8, 0)).toBeCloseTo(0.0078125, 12);
    expect(signTest(0, 4)).toBeCloseTo(0.125, 12);
    // 2 × (1 + 10 + 45) / 1024
    expect(signTest(2, 8)).toBeCloseTo(0.109375, 12);
    expect(signTest(3, 2)).toBe(1);
    expect(signTest(0, 0)).toBe(1);
    // Large counts stay finite: 600 vs 400 is far from chance.
    expect(signTest(600, 400)).toBeLessThan(1e-9);
    expect(signTest(600, 400)).toBeGreaterThan(0);
  });
});

describe("percentile", () => {
  it("is nearest-rank", () => {
    expect(percentile([40, 10, 30, 20], 0.5)).toBe(20);
    expect(percentile([40, 10, 30, 20], 0.9)).toBe(40);
    expect(percentile([5], 0.9)).toBe(5);
    expect(percentile([], 0.5)).toBeUndefined();
  });
});

describe("jsonSchemaIssues", () => {
  const person = {
    type: "object",
    required: ["name", "born"],
    properties: { name: { type: "string", minLength: 2 }, born: { type: "integer", minimum: 1000 } },
    additionalProperties: false,
  } as const;

  it("lists where a value breaks the schema", () => {
    expect(jsonSchemaIssues(person, { name: "Ada", born: 1815 })).toEqual([]);
    expect(jsonSchemaIssues(person, { name: "A", born: 1815.5, extra: 1 })).toEqual([
      "$.name: shorter than 2",
      "$.born: expected integer, got number",
      "$.extra: not allowed",
    ]);
    expect(jsonSchemaIssues(person, { name: "Ada" })).toEqual(["$: missing required property born"]);
    expect(jsonSchemaIssues({ type: "array", items: { enum: [1, 2] }, maxItems: 2 }, [1, 3, 2])).toEqual([
      "$: more than 2 items",
      "$[1]: expected one of [1,2]",
    ]);
    expect(jsonSchemaIssues({ anyOf: [{ type: "string" }, { type: "null" }] }, 3)).toEqual([
      "$: matches none of anyOf",
    ]);
  });

  it("refuses a keyword it does not check, instead of passing everything", () => {
    expect(() => jsonSchemaIssues({ type: "object", oneOf: [] } as never, {})).toThrow(
      "jsonSchemaIssues: schema.oneOf is not a supported keyword",
    );
  });
});

describe("checkAnswer", () => {
  const answer = (text: string, object?: unknown): EvalAnswer => ({
    text,
    response: {
      message: { role: "assistant", content: text, toolCalls: [], toolResults: [], synthetic: false },
      usage: {},
      stopReason: "stop",
      model: "m",
      provider: "fake",
      ...(object === undefined ? {} : { object }),
    },
    messages: [],
    task: "t",
    route: "r",
  });

  it("exact: trimmed, case-sensitive unless told", async () => {
    expect(await checkAnswer({ exact: "Canberra" }, answer(" Canberra\n"))).toEqual({ pass: true });
    expect((await checkAnswer({ exact: "Canberra" }, answer("canberra"))).pass).toBe(false);
    expect(await checkAnswer({ exact: "Canberra", ignoreCase: true }, answer("canberra"))).toEqual({
      pass: true,
    });
    expect((await checkAnswer({ exact: "a", trim: false }, answer("a "))).pass).toBe(false);
  });

  it("boxed: the last closed box, compared with the expected value", async () => {
    expect(await checkAnswer({ boxed: "391" }, answer("\\boxed{381}, no: \\boxed{391}"))).toEqual({
      pass: true,
    });
    expect(await checkAnswer({ boxed: "391" }, answer("391"))).toEqual({
      pass: false,
      detail: "no closed \\boxed{} in the answer",
    });
  });

  it("jsonSchema: structured output, or the text with its code fence removed", async () => {
    const check = { jsonSchema: { type: "object", required: ["a"] } } as const;
    expect(await checkAnswer(check, answer('```json\n{"a": 1}\n```'))).toEqual({ pass: true });
    expect(await checkAnswer(check, answer("ignored", { a: 2 }))).toEqual({ pass: true });
    expect(await checkAnswer(check, answer("{a: 1}"))).toEqual({ pass: false, detail: 'not JSON: "{a: 1}"' });
  });

  it("a function: a boolean or a verdict; any other shape is refused", async () => {
    expect(await checkAnswer(({ text }) => text.length > 2, answer("abc"))).toEqual({ pass: true });
    expect(await checkAnswer(async () => ({ pass: false, detail: "no" }), answer("abc"))).toEqual({
      pass: false,
      detail: "no",
    });
    await expect(checkAnswer((() => "yes") as never, answer("x"))).rejects.toThrow(
      "not a boolean or { pass }",
    );
    await expect(checkAnswer({ contains: "x" } as never, answer("x"))).rejects.toThrow(
      "got the fields contains",
    );
  });
});
