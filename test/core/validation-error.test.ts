/**
 * What a person reads when their input is refused: every bad field by its path, and what is wrong with it
 * in words (zod/mini ships no messages; `issuesOf` writes them).
 */
import { describe, expect, it } from "vitest";
import { parseCallOptions, parseMessages, ValidationError } from "../../src/index.ts";

function issues(run: () => unknown) {
  try {
    run();
  } catch (error) {
    expect(ValidationError.is(error)).toBe(true);
    return [...(error as ValidationError).issues];
  }
  throw new Error("expected a ValidationError");
}

describe("issuesOf, through the public parsers", () => {
  it("names each unknown field, not the object around it", () => {
    expect(issues(() => parseCallOptions({ bogus: 1, other: 2 }))).toEqual([
      { path: "options.bogus", message: 'unknown field "bogus"' },
      { path: "options.other", message: 'unknown field "other"' },
    ]);
  });

  it("says what type was expected, and which values a choice takes", () => {
    expect(issues(() => parseMessages([{ role: "robot", toolCalls: [{ id: 7 }] }]))).toEqual([
      { path: "messages[0].role", message: 'expected "system" or "user" or "assistant" or "tool"' },
      { path: "messages[0].toolCalls[0].id", message: "expected string" },
      { path: "messages[0].toolCalls[0].name", message: "expected string" },
    ]);
  });

  it("a union lists what each branch takes", () => {
    expect(issues(() => parseCallOptions({ thinking: "sometimes" }))).toEqual([
      { path: "options.thinking", message: 'expected "off" or "adaptive" or object' },
    ]);
  });

  it("bounds say which, with the schema's own words where it has them", () => {
    expect(issues(() => parseCallOptions({ maxTokens: 2 ** 53 - 1, temperature: 3 }))).toEqual([
      { path: "options.maxTokens", message: "at most 1048576" },
      { path: "options.temperature", message: "at most 2" },
    ]);
    expect(issues(() => parseCallOptions({ stopSequences: Array(33).fill("x") }))).toEqual([
      { path: "options.stopSequences", message: "at most 32 stop sequences" },
    ]);
    expect(issues(() => parseCallOptions({ sessionId: "two\nlines" }))).toEqual([
      { path: "options.sessionId", message: "printable ASCII without leading or trailing blanks" },
    ]);
  });

  it("the message of the error starts with the first issue and counts the rest", () => {
    try {
      parseCallOptions({ bogus: 1, maxTokens: 0 });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toBe("options.maxTokens: greater than 0 (and 1 more)");
    }
  });
});
