/**
 * What a provider call returns, streaming or not.
 *
 * @module
 */
import * as z from "zod/mini";
import {
  type Message,
  type MessageInput,
  NativeSchema,
  RoleSchema,
  ToolCallSchema,
  ToolResultSchema,
} from "./message.ts";
import { type Usage, UsageSchema } from "./usage.ts";

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
export type StopReason = "stop" | "length" | "tool-calls" | "content-filter" | "pause" | "error" | "other";

/** Validates a {@link StopReason}. */
export const StopReasonSchema: z.ZodMiniType<StopReason, StopReason> = z.enum([
  "stop",
  "length",
  "tool-calls",
  "content-filter",
  "pause",
  "error",
  "other",
]);

/** Which member of a fallback chain served a call, and what failed before it. */
export interface ServedBy {
  /** Position of the serving entry in the chain. */
  index: number;
  provider: string;
  model: string;
  /** Errors of the entries tried before it, in order, as `ProviderError.toJSON()` data. */
  failures: unknown[];
}

/** Validates a {@link ServedBy}. */
export const ServedBySchema: z.ZodMiniType<ServedBy, ServedBy> = z.object({
  index: z.number(),
  provider: z.string(),
  model: z.string(),
  failures: z.array(z.unknown()),
});

/**
 * The assistant message of a response: a {@link Message} whose `content` is always text (what a model
 * answers is text; structured output is text too, parsed into `Response.object`).
 */
export type AssistantMessage = Omit<Message, "content"> & { content: string };

/** The result of one provider call. */
export interface Response {
  /** The assistant message, with `native` set when the provider produced content it must get back verbatim. */
  message: AssistantMessage;
  usage: Usage;
  stopReason: StopReason;
  /** The provider's own stop value (`end_turn`, `tool_use`, `stop`, …), when it sent one. */
  rawStopReason?: string;
  /** The model that answered, as the provider reported it. */
  model: string;
  /** The provider that answered, e.g. `"anthropic"`, `"bedrock"`, `"fake"`. */
  provider: string;
  /** The provider's id for this response, when it sent one. */
  id?: string;
  /**
   * Readable reasoning (thinking text, reasoning summaries), for display and logs only: it is never sent
   * back. What is replayed lives in `message.native`.
   */
  reasoning?: string;
  /** Things the adapter corrected or left out while building the request (never silently). */
  warnings?: string[];
  /** Set by `fallback()`: which entry served the call. */
  servedBy?: ServedBy;
  /**
   * The structured output of a call with `responseFormat`: the answer parsed as JSON (and validated, when a
   * Standard Schema was given). Absent when the model refused.
   */
  object?: unknown;
  /** The model's refusal, when it declined to answer (`stopReason` is then `content-filter`). */
  refusal?: string;
}

/** Validates a {@link Response} (a stored or transported one), filling the message's defaults. */
const AssistantMessageSchema = z.strictObject({
  role: RoleSchema,
  content: z._default(z.string(), ""),
  toolCalls: z._default(z.array(ToolCallSchema), () => []),
  toolResults: z._default(z.array(ToolResultSchema), () => []),
  synthetic: z._default(z.boolean(), false),
  native: z.optional(NativeSchema),
});

export const ResponseSchema: z.ZodMiniType<
  Response,
  Omit<Response, "message"> & { message: Omit<MessageInput, "content"> & { content?: string } }
> = z.object({
  message: AssistantMessageSchema,
  usage: UsageSchema,
  stopReason: StopReasonSchema,
  rawStopReason: z.optional(z.string()),
  model: z.string(),
  provider: z.string(),
  id: z.optional(z.string()),
  reasoning: z.optional(z.string()),
  warnings: z.optional(z.array(z.string())),
  servedBy: z.optional(ServedBySchema),
  object: z.optional(z.unknown()),
  refusal: z.optional(z.string()),
});
