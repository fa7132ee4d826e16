/**
 * The `profile` field of the configs of the protocols that run Claude models (`anthropic`, `bedrock`):
 * overrides on top of the built-in profile of the config's model, checked and completed the same way for
 * both.
 *
 * @module
 */
import * as z from "zod/mini";
import { ValidationError } from "../../core/validation-error.ts";
import {
  type AnthropicModelProfile,
  anthropicModelProfile,
  anthropicPrices,
} from "../../providers/anthropic-model-profiles.ts";
import { defined } from "./defined.ts";

const nonNegative = () => z.optional(z.number().check(z.nonnegative()));
const positiveInt = () => z.optional(z.number().check(z.int(), z.positive()));

/** `profile`: any field of `AnthropicModelProfile`, prices in part. */
export const AnthropicProfileSchema = z.optional(
  z.strictObject({
    family: z.optional(z.string()),
    thinking: z.optional(z.enum(["adaptive-only", "adaptive-or-budget", "budget", "none"])),
    effort: z.optional(z.boolean()),
    structuredOutput: z.optional(z.boolean()),
    keepsPriorThinking: z.optional(z.boolean()),
    maxOutputTokens: positiveInt(),
    contextWindow: positiveInt(),
    defaultMaxTokens: positiveInt(),
    prices: z.optional(
      z.strictObject({
        input: nonNegative(),
        output: nonNegative(),
        cacheRead: nonNegative(),
        cacheWrite5m: nonNegative(),
        cacheWrite1h: nonNegative(),
      }),
    ),
  }),
);

/**
 * The profile of `model` with `overrides` applied, or `undefined` when there are none (the provider then
 * looks the model up itself). Prices given in part are completed from the model's known prices, or from
 * `input` and `output` by the usual cache multipliers; a model without known prices needs both.
 */
export function anthropicProfile(
  model: string,
  overrides: z.output<typeof AnthropicProfileSchema>,
): AnthropicModelProfile | undefined {
  if (!overrides) return undefined;
  const base = anthropicModelProfile(model);
  const { prices: priceOverrides, ...rest } = overrides;
  const prices = { ...base.prices, ...defined(priceOverrides ?? {}) };
  if (!base.prices && !priceOverrides) return { ...base, ...rest };
  if (prices.input === undefined || prices.output === undefined) {
    throw new ValidationError([
      { path: "profile.prices", message: "input and output are required for a model without known prices" },
    ]);
  }
  return { ...base, ...rest, prices: { ...anthropicPrices(prices.input, prices.output), ...prices } };
}
