/** The shared runtime cases (./cases.ts), run by vitest in Node. The same cases run in workerd, Deno and Bun. */
import { describe, expect, it } from "vitest";
import { cases } from "./cases.ts";

describe("core cases (node)", () => {
  it("has cases", () => {
    expect(cases.length).toBeGreaterThanOrEqual(15);
  });
  for (const testCase of cases) it(testCase.name, () => testCase.run());
});
