/**
 * What a provider call returns, streaming or not.
 *
 * @module
 */
import * as z from "zod/mini";
import { MessageSchema } from "./message.ts";
import { UsageSchema } from "./usage.ts";

/**
 * Why the model stopped, in neutral terms:
 * - `stop`: it finished (end of turn, a stop sequence);
 * - `length`: it hit the output limit (or the context window);
 * - `tool-calls`: it wants tools run;
 * - `content-filter`: it refused or was filtered;
 * - `pause`: the provider paused a long server-side turn; send the history back to continue;
 * - `error`: the provider reported a failure inside an otherwise successful response;
 * - `other`: a reason this version does not know (the provider's own value is in `rawStopReason`).
 */
export const StopReasonSchema = z.enum([
  "stop",
  "length",
  "tool-calls",
  "content-filter",
  "pause",
  "error",
  "other",
]);
export type StopReason = z.output<typeof StopReasonSchema>;

/** Which member of a fallback chain served a call, and what failed before it. */
export const ServedBySchema = z.object({
  /** Position of the serving entry in the chain. */
  index: z.number(),
  provider: z.string(),
  model: z.string(),
  /** Errors of the entries tried before it, in order, as `ProviderError.toJSON()` data. */
  failures: z.array(z.unknown()),
});
export type ServedBy = z.output<typeof ServedBySchema>;

/** The result of one provider call. */
export const ResponseSchema = z.object({
  /** The assistant message, with `native` set when the provider produced content it must get back verbatim. */
  message: MessageSchema,
  usage: UsageSchema,
  stopReason: StopReasonSchema,
  /** The provider's own stop value (`end_turn`, `tool_use`, `stop`, …), when it sent one. */
  rawStopReason: z.optional(z.string()),
  /** The model that answered, as the provider reported it. */
  model: z.string(),
  /** The provider that answered, e.g. `"anthropic"`, `"bedrock"`, `"fake"`. */
  provider: z.string(),
  /** The provider's id for this response, when it sent one. */
  id: z.optional(z.string()),
  /**
   * Readable reasoning (thinking text, reasoning summaries), for display and logs only: it is never sent
   * back. What is replayed lives in `message.native`.
   */
  reasoning: z.optional(z.string()),
  /** Things the adapter corrected or left out while building the request (never silently). */
  warnings: z.optional(z.array(z.string())),
  /** Set by `fallback()`: which entry served the call. */
  servedBy: z.optional(ServedBySchema),
});
export type Response = z.output<typeof ResponseSchema>;
