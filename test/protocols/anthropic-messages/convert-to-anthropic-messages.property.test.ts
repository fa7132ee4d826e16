/** convertToAnthropicMessages and buildAnthropicRequest: properties over arbitrary histories and options. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CacheOption } from "../../../src/core/call-options.ts";
import type { MessageInput } from "../../../src/core/message.ts";
import { buildAnthropicRequest } from "../../../src/protocols/anthropic-messages/index.ts";
import { anthropicModelProfile } from "../../../src/providers/anthropic-model-profiles.ts";
import {
  allBlocks,
  checkConversion,
  countCacheMarks,
  historyArb,
  optionsArb,
  PROFILE_MODELS,
  TARGET,
  TOOLS,
  withUniqueCallIds,
} from "./convert-to-anthropic-messages.helpers.ts";

describe("convertToAnthropicMessages: property over arbitrary histories", () => {
  it("never throws and always produces a request the Messages API accepts", () => {
    fc.assert(
      fc.property(historyArb, (history) => {
        checkConversion(history);
      }),
      { numRuns: 600 },
    );
  });

  it("the same, for histories whose tool-call ids are unique (isolates the duplicate-id case)", () => {
    fc.assert(
      fc.property(historyArb.map(withUniqueCallIds), (history) => {
        checkConversion(history);
      }),
      { numRuns: 600 },
    );
  });
});

describe("buildAnthropicRequest: property over arbitrary histories and options", () => {
  it("never throws, never sends an unsatisfiable thinking budget, at most 4 cache marks, none on thinking", () => {
    fc.assert(
      fc.property(
        historyArb,
        optionsArb,
        fc.constantFrom(...PROFILE_MODELS),
        fc.subarray(TOOLS),
        fc.boolean(),
        fc.constantFrom<CacheOption | undefined>(undefined, "auto", "off"),
        (history, options, profileModel, tools, stream, defaultCache) => {
          const profile = anthropicModelProfile(profileModel);
          const snapshot = structuredClone(history);
          const { body, warnings } = buildAnthropicRequest({
            messages: history as MessageInput[],
            tools,
            options,
            target: TARGET,
            profile,
            stream,
            defaultCache,
          });
          expect(Array.isArray(warnings)).toBe(true);
          expect(Number.isInteger(body.max_tokens) && body.max_tokens > 0).toBe(true);
          const requestedMax = options.maxTokens ?? profile.defaultMaxTokens;
          if (body.max_tokens !== requestedMax)
            expect(body.max_tokens).toBeLessThanOrEqual(profile.maxOutputTokens);

          const thinking = body.thinking;
          if (thinking?.type === "enabled") {
            expect(thinking.budget_tokens).toBeGreaterThanOrEqual(1024);
            expect(thinking.budget_tokens).toBeLessThan(body.max_tokens);
            expect(Number.isInteger(thinking.budget_tokens)).toBe(true);
            expect(profile.thinking).not.toBe("adaptive-only");
          }
          if (thinking?.type === "adaptive")
            expect(["adaptive-only", "adaptive-or-budget"]).toContain(profile.thinking);
          if (profile.thinking === "none") expect(thinking).toBeUndefined();
          if (thinking?.type === "enabled" || thinking?.type === "adaptive") {
            expect(body.temperature === undefined || body.temperature === 1).toBe(true);
            expect(body.top_p === undefined || body.top_p >= 0.95).toBe(true);
            expect(body.tool_choice?.type === "any" || body.tool_choice?.type === "tool").toBe(false);
          }
          if (body.tool_choice !== undefined) expect(body.tools?.length).toBeGreaterThan(0);

          expect(countCacheMarks(body)).toBeLessThanOrEqual(4);
          for (const block of allBlocks(body.messages)) {
            if (block.type === "thinking" || block.type === "redacted_thinking")
              expect(block).not.toHaveProperty("cache_control");
          }
          // Building a request never changes the caller's history (replayed blocks included). Compared as
          // JSON: fast-check may generate null-prototype objects, which a structured clone does not keep.
          if (JSON.stringify(history) !== JSON.stringify(snapshot))
            expect.fail("buildAnthropicRequest mutated its input history");
          expect(() => JSON.stringify(body)).not.toThrow();
        },
      ),
      { numRuns: 600 },
    );
  });
});
