/**
 * Per-call options shared by every provider. Providers ignore what their API cannot express and say so in
 * `Response.warnings`; they never fail a call over an option they can safely drop.
 *
 * @module
 */
import * as z from "zod/mini";
import { validate } from "./validation-error.ts";

/**
 * Thinking / reasoning:
 * - `"off"`: no thinking;
 * - `"adaptive"`: the model decides whether and how much to think;
 * - `{ budgetTokens }`: a fixed thinking budget (models that only think adaptively get adaptive, with a warning);
 * - `{ effort }`: an effort level (OpenAI `reasoning_effort`, Anthropic effort).
 */
export type Thinking =
  | "off"
  | "adaptive"
  | { budgetTokens: number }
  | { effort: "minimal" | "low" | "medium" | "high" | "max" };

/** Validates a {@link Thinking}. */
export const ThinkingSchema: z.ZodMiniType<Thinking, Thinking> = z.union([
  z.enum(["off", "adaptive"]),
  z.object({ budgetTokens: z.number().check(z.int(), z.positive()) }),
  z.object({ effort: z.enum(["minimal", "low", "medium", "high", "max"]) }),
]);

/**
 * Which tools the model may or must call: `auto` (its choice), `any` (at least one, any of them), `none`,
 * or `{ name }` (exactly that one).
 */
export type ToolChoice = "auto" | "any" | "none" | { name: string };

/** Validates a {@link ToolChoice}. */
export const ToolChoiceSchema: z.ZodMiniType<ToolChoice, ToolChoice> = z.union([
  z.enum(["auto", "any", "none"]),
  z.object({ name: z.string() }),
]);

/**
 * Prompt caching, for providers that take explicit cache marks (Anthropic, Bedrock):
 * - `"auto"`: marks on the tools, the system prompt and the end of the conversation's stable prefix;
 * - `"off"`: no marks;
 * - `{ ttl }`: auto with a TTL (`"5m"` default, `"1h"` costs more to write and lives longer);
 * - `{ breakpoints }`: marks exactly at `"tools"`, `"system"` or `{ message: i }` (the request's i-th message).
 */
export type CacheOption =
  | "auto"
  | "off"
  | { ttl?: "5m" | "1h"; breakpoints?: Array<"tools" | "system" | { message: number }> };

/** Validates a {@link CacheOption}. */
export const CacheOptionSchema: z.ZodMiniType<CacheOption, CacheOption> = z.union([
  z.enum(["auto", "off"]),
  z.strictObject({
    ttl: z.optional(z.enum(["5m", "1h"])),
    breakpoints: z.optional(
      z.array(
        z.union([
          z.enum(["tools", "system"]),
          z.strictObject({ message: z.number().check(z.int(), z.nonnegative()) }),
        ]),
      ),
    ),
  }),
]);

/** Options of one `complete()` or `stream()` call. */
export interface CallOptions {
  /** The output cap (`max_tokens`); raised above a thinking budget when the API requires it. */
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
  thinking?: Thinking;
  toolChoice?: ToolChoice;
  cache?: CacheOption;
  /** Whether the model may call several tools in one turn (default: the provider's, usually yes). */
  parallelToolCalls?: boolean;
  /** Identifies the conversation, for session affinity and prompt-cache routing. */
  sessionId?: string;
  /** Free-form tags passed to providers that accept them and to telemetry. */
  metadata?: Record<string, string>;
  /** Aborts the call: the request, the body and any wait. An abort is never retried or fallen through. */
  signal?: AbortSignal;
}

/** Validates the serialisable part of {@link CallOptions} (everything but `signal`), for HTTP bodies and config. */
export const CallOptionsSchema: z.ZodMiniType<
  Omit<CallOptions, "signal">,
  Omit<CallOptions, "signal">
> = z.strictObject({
  maxTokens: z.optional(z.number().check(z.int(), z.positive())),
  temperature: z.optional(z.number().check(z.minimum(0), z.maximum(2))),
  topP: z.optional(z.number().check(z.minimum(0), z.maximum(1))),
  stopSequences: z.optional(z.array(z.string())),
  thinking: z.optional(ThinkingSchema),
  toolChoice: z.optional(ToolChoiceSchema),
  cache: z.optional(CacheOptionSchema),
  parallelToolCalls: z.optional(z.boolean()),
  sessionId: z.optional(z.string()),
  metadata: z.optional(z.record(z.string(), z.string())),
});

/** Validates untrusted call options; throws a `ValidationError` naming the bad field (`options.maxTokens: …`). */
export function parseCallOptions(value: unknown, root = "options"): CallOptions {
  return validate(CallOptionsSchema, value ?? {}, root);
}
