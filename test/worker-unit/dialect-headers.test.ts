/**
 * The dialect routes' own headers (`response-headers.ts`) on input a client controls: thousands of
 * warnings (built in linear time, cut to fit), and beta flags holding what a header value cannot carry.
 */
import { describe, expect, it } from "vitest";
import { dialectHeaders } from "../../src/worker/response-headers.ts";

describe("dialectHeaders", () => {
  it("20,000 warnings: one header within 4000 characters, built in linear time", () => {
    const warnings = Array.from({ length: 20_000 }, (_, index) => `messages[${index}]: ${"é".repeat(40)}`);
    const started = performance.now();
    const value = dialectHeaders(warnings)["x-modelwire-warnings"]!;
    // The quadratic build took ~18 s for 8,000; the linear one takes milliseconds (a wide margin for CI).
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(value.length).toBeLessThanOrEqual(4000);
    const shown = JSON.parse(value) as string[];
    expect(shown.slice(0, -1)).toEqual(warnings.slice(0, shown.length - 1));
    expect(shown.at(-1)).toBe(`… and ${warnings.length - (shown.length - 1)} more`);
  });

  it("warnings that all fit are shown whole; one too long for the header is counted", () => {
    expect(JSON.parse(dialectHeaders(["a", "b"])["x-modelwire-warnings"]!)).toEqual(["a", "b"]);
    expect(JSON.parse(dialectHeaders(["x".repeat(5000)])["x-modelwire-warnings"]!)).toEqual([
      "1 warning(s), too long to show",
    ]);
  });

  it("dropped betas: flags with a line break or non-Latin-1 text are counted, not named; Headers takes it", () => {
    const headers = dialectHeaders([], ["ok-2025-01-01", "a\nb", "caf\u00e9", "\u2615", "x".repeat(101)]);
    expect(headers["x-modelwire-dropped-betas"]).toBe("ok-2025-01-01,+4 unnamed");
    expect(() => new Response("", { headers })).not.toThrow();
  });
});
