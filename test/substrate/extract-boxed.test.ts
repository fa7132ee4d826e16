import { describe, expect, it } from "vitest";
import { extractBoxed } from "../../src/substrate/index.ts";

describe("extractBoxed", () => {
  it("returns the content of a box", () => {
    expect(extractBoxed("The answer is \\boxed{42}.")).toBe("42");
  });

  it("handles nested braces", () => {
    expect(extractBoxed("so \\boxed{\\frac{1}{2}}")).toBe("\\frac{1}{2}");
    expect(extractBoxed("\\boxed{\\sqrt{\\frac{a}{b^{2}}}} done")).toBe("\\sqrt{\\frac{a}{b^{2}}}");
  });

  it("returns the last box", () => {
    expect(extractBoxed("first \\boxed{1}, then corrected: \\boxed{2}")).toBe("2");
  });

  it("a box inside a box belongs to the outer one", () => {
    expect(extractBoxed("\\boxed{x = \\boxed{3}}")).toBe("x = \\boxed{3}");
  });

  it("does not count escaped braces", () => {
    expect(extractBoxed("\\boxed{\\{1, 2\\}}")).toBe("\\{1, 2\\}");
    expect(extractBoxed("\\boxed{\\}}")).toBe("\\}");
  });

  it("accepts blanks before the brace and trims the content", () => {
    expect(extractBoxed("\\boxed {  7 }")).toBe("7");
  });

  it("is undefined without a box", () => {
    expect(extractBoxed("no box here")).toBeUndefined();
    expect(extractBoxed("")).toBeUndefined();
    expect(extractBoxed("\\boxed 5")).toBeUndefined();
    expect(extractBoxed("\\boxedfoo{1}")).toBeUndefined();
    expect(extractBoxed(undefined as unknown as string)).toBeUndefined();
  });

  it("is undefined when the last box is not closed (a truncated answer), never an earlier one", () => {
    expect(extractBoxed("\\boxed{12")).toBeUndefined();
    expect(extractBoxed("\\boxed{1} and finally \\boxed{\\frac{2}{3}")).toBeUndefined();
  });

  it("keeps an empty box as an empty answer", () => {
    expect(extractBoxed("\\boxed{}")).toBe("");
  });
});
