/** Where automatic cache marks go: the last message and the user message before it. */
import { describe, expect, it } from "vitest";
import { autoCacheTail } from "../../src/protocols/cache-tail.ts";

describe("autoCacheTail", () => {
  it("the last message, then the last user message before it", () => {
    const roles = (...list: string[]) => list.map((role) => ({ role }));
    expect(autoCacheTail(roles("user", "assistant", "user"))).toEqual([2, 0]);
    expect(autoCacheTail(roles("user", "assistant", "user", "assistant", "user"))).toEqual([4, 2]);
    expect(autoCacheTail(roles("user"))).toEqual([0]);
    expect(autoCacheTail(roles("assistant", "assistant"))).toEqual([1]);
    expect(autoCacheTail([])).toEqual([]);
  });
});
