/**
 * The shared runtime cases (test/runtime/cases.ts), run inside workerd without nodejs_compat: proof that
 * the library core needs no Node API. The same cases run in Node, Deno and Bun.
 */
import { describe, expect, it } from "vitest";
import { cases } from "../runtime/cases.ts";

describe("core cases (workerd)", () => {
  it("runs inside workerd, not Node", () => {
    expect(navigator.userAgent).toBe("Cloudflare-Workers");
    expect(cases.length).toBeGreaterThanOrEqual(15);
  });
  for (const testCase of cases) it(testCase.name, () => testCase.run());
});
