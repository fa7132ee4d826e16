/** Usage: "reported zero" is not "not reported", through every helper; the schema validates counts. */
import { describe, expect, it } from "vitest";
import { validate } from "../../src/core/validation-error.ts";
import { addUsage, totalInputTokens, ValidationError } from "../../src/index.ts";
import { ResponseSchema, UsageSchema } from "../../src/protocols/index.ts";

describe("totalInputTokens", () => {
  it("mutation gap 8: a reported zero is 0, not undefined (the zero-vs-not-reported case itself)", () => {
    expect(totalInputTokens({ inputTokens: 0 })).toBe(0);
    expect(totalInputTokens({ cachedInputTokens: 0 })).toBe(0);
    expect(totalInputTokens({ cacheWriteTokens: 0 })).toBe(0);
    expect(totalInputTokens({ outputTokens: 5 })).toBeUndefined();
    expect(totalInputTokens({})).toBeUndefined();
    expect(totalInputTokens({ inputTokens: 2, cachedInputTokens: 30, cacheWriteTokens: 400 })).toBe(432);
  });

  it("adds up what was reported across calls, and stays undefined when nothing was", () => {
    expect(totalInputTokens(addUsage({ inputTokens: 0 }, { outputTokens: 1 }))).toBe(0);
    expect(totalInputTokens(addUsage({ outputTokens: 1 }, undefined))).toBeUndefined();
  });
});

describe("UsageSchema and ResponseSchema parse", () => {
  it("mutation gap 8: UsageSchema takes non-negative integer counts and names a bad one", () => {
    expect(validate(UsageSchema, { inputTokens: 0, reasoningTokens: 12 }, "usage")).toEqual({
      inputTokens: 0,
      reasoningTokens: 12,
    });
    for (const [value, path] of [
      [{ inputTokens: -1 }, "usage.inputTokens"],
      [{ outputTokens: 1.5 }, "usage.outputTokens"],
      [{ cachedInputTokens: "3" }, "usage.cachedInputTokens"],
    ] as const) {
      try {
        validate(UsageSchema, value, "usage");
        expect.unreachable(JSON.stringify(value));
      } catch (error) {
        expect(ValidationError.is(error)).toBe(true);
        expect((error as ValidationError).issues[0]!.path).toBe(path);
      }
    }
  });

  it("mutation gap 8: ResponseSchema parses a stored response, filling the message's defaults", () => {
    const parsed = validate(
      ResponseSchema,
      {
        message: { role: "assistant", content: "hi" },
        usage: { inputTokens: 0 },
        stopReason: "stop",
        model: "m",
        provider: "p",
      },
      "response",
    );
    expect(parsed.message).toEqual({
      role: "assistant",
      content: "hi",
      toolCalls: [],
      toolResults: [],
      synthetic: false,
    });
    expect(parsed.usage).toEqual({ inputTokens: 0 });
    expect(() =>
      validate(
        ResponseSchema,
        { message: {}, usage: {}, stopReason: "finished", model: "m", provider: "p" },
        "response",
      ),
    ).toThrow(/response\.message\.role: expected/);
  });
});
