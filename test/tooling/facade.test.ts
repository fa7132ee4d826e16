/**
 * Facade reachability (seed 004: hooks the docs tell hosts to configure were not exported from the
 * facade). Every documented entry point is imported by the package's own name, as a user would.
 */
import * as modelwire from "modelwire";
import * as testing from "modelwire/testing";
import { describe, expect, it } from "vitest";

const DOCUMENTED = {
  core: [
    "normalizeMessages",
    "parseMessages",
    "parseCallOptions",
    "collectStream",
    "coalesceDeltas",
    "addUsage",
    "Usage",
    "ProviderError",
    "ValidationError",
    "normalizeToolSpecs",
    "readSse",
    "readSseBatches",
  ],
  providers: [
    "anthropic",
    "anthropicModelProfile",
    "openaiChat",
    "openAIChatEndpointProfile",
    "sessionAffinity",
    "staticAffinity",
    "retryAfterMs",
  ],
  substrate: [
    "fallback",
    "retry",
    "rateLimitResetMs",
    "createProvider",
    "protocolOf",
    "affinityPool",
    "providerAffinity",
    "isStopStatus",
    "checkPause",
    "costOf",
    "cacheImpact",
    "withTelemetry",
    "extractBoxed",
  ],
  agent: ["runAgent"],
} as const;

describe("facade reachability", () => {
  for (const [layer, names] of Object.entries(DOCUMENTED)) {
    it(`every documented ${layer} export is reachable from "modelwire"`, () => {
      const missing = names.filter(
        (name) => typeof (modelwire as Record<string, unknown>)[name] === "undefined",
      );
      expect(missing).toEqual([]);
    });
  }

  it('FakeProvider is reachable from "modelwire/testing"', () => {
    expect(typeof testing.FakeProvider).toBe("function");
    expect(typeof testing.FakeScriptExhaustedError).toBe("function");
  });

  it("the README names no function the entry does not export", async () => {
    const { readFileSync } = await import("node:fs");
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const imported = [...readme.matchAll(/import \{([^}]+)\} from "modelwire"/g)].flatMap((match) =>
      match[1]!
        .split(",")
        .map((name) => name.replace(/\btype\b/, "").trim())
        .filter(Boolean),
    );
    expect(imported.length).toBeGreaterThan(5);
    const typeOnly = new Set([
      "MessageInput",
      "Message",
      "Response",
      "StreamEvent",
      "ToolSpec",
      "CallOptions",
    ]);
    const missing = imported.filter(
      (name) => !typeOnly.has(name) && typeof (modelwire as Record<string, unknown>)[name] === "undefined",
    );
    expect(missing).toEqual([]);
  });
});
