/**
 * Per-call options shared by every provider. Providers ignore what their API cannot express and say so in
 * `Response.warnings`; they never fail a call over an option they can safely drop.
 *
 * @module
 */
import * as z from "zod/mini";
import type { JsonSchema } from "./tool-spec.ts";
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
  /**
   * Structured output: `{ type: "json" }` for any JSON object, or `{ type: "json_schema", schema }` for one
   * that matches `schema` (JSON Schema, or a Standard Schema such as a zod schema, which also validates
   * the result). Mapped to each API's native form; the parsed value is `Response.object`.
   */
  responseFormat?: ResponseFormat;
  /**
   * Deadlines of the upstream request: `firstByteMs` for its response headers, `idleMs` between two pieces
   * of its body. Either one missed aborts the request with a `ProviderError` of kind `timeout`. Unset: the
   * provider's settings, else the defaults (stream 120 s / complete 600 s to the first byte; 300 s idle).
   */
  timeouts?: Timeouts;
  /** Aborts the call: the request, the body and any wait. An abort is never retried or fallen through. */
  signal?: AbortSignal;
}

/** See {@link CallOptions.responseFormat}. */
export type ResponseFormat =
  | { type: "json" }
  | {
      type: "json_schema";
      /** JSON Schema of the object, or a Standard Schema (zod 4) that describes itself as one. */
      schema: JsonSchema | StandardSchemaLike;
      /** A name for the schema (OpenAI requires one: `[a-zA-Z0-9_-]{1,64}`); default `"output"`. */
      name?: string;
      /** Ask the provider to enforce the schema exactly where it can (OpenAI `strict`); default true. */
      strict?: boolean;
      description?: string;
    };

/**
 * A schema that validates (Standard Schema) and describes itself as JSON Schema (Standard JSON Schema):
 * what zod 4 schemas are.
 */
export interface StandardSchemaLike {
  "~standard": {
    validate(value: unknown): unknown;
    jsonSchema?: {
      input(options: { target: string }): JsonSchema;
      output?(options: { target: string }): JsonSchema;
    };
  };
}

/** See {@link CallOptions.timeouts}. */
export interface Timeouts {
  firstByteMs?: number;
  idleMs?: number;
}

/** Longest timeout accepted: one hour. */
export const MAX_TIMEOUT_MS = 3_600_000;

const RESPONSE_FORMAT_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Validates the serialisable {@link ResponseFormat} (JSON Schema only: a Standard Schema is code). */
export const ResponseFormatSchema: z.ZodMiniType<ResponseFormat, ResponseFormat> = z.union([
  z.strictObject({ type: z.literal("json") }),
  z.strictObject({
    type: z.literal("json_schema"),
    schema: z.record(z.string(), z.unknown()),
    name: z.optional(z.string().check(z.regex(RESPONSE_FORMAT_NAME, "[a-zA-Z0-9_-]{1,64}"))),
    strict: z.optional(z.boolean()),
    description: z.optional(z.string().check(z.maxLength(4096))),
  }),
]) as unknown as z.ZodMiniType<ResponseFormat, ResponseFormat>;

const milliseconds = () =>
  z.optional(
    z.number().check(z.int(), z.positive(), z.maximum(MAX_TIMEOUT_MS, `at most ${MAX_TIMEOUT_MS} ms`)),
  );

/** Validates {@link Timeouts}. */
export const TimeoutsSchema: z.ZodMiniType<Timeouts, Timeouts> = z.strictObject({
  firstByteMs: milliseconds(),
  idleMs: milliseconds(),
});

/**
 * Largest `maxTokens` accepted (2^20): above any model's output limit, and far below a number that only an
 * attacker or a bug would send.
 */
export const MAX_OUTPUT_TOKENS = 1_048_576;
/** Most stop sequences in one call, and the longest one, in characters. */
export const MAX_STOP_SEQUENCES = 32;
export const MAX_STOP_SEQUENCE_CHARS = 1000;
/** Longest session id, in characters. */
export const MAX_SESSION_ID_CHARS = 256;

/** `maxTokens`: a positive integer up to {@link MAX_OUTPUT_TOKENS}. */
export const MaxTokensSchema: z.ZodMiniType<number, number> = z
  .number()
  .check(z.int(), z.positive(), z.maximum(MAX_OUTPUT_TOKENS, `at most ${MAX_OUTPUT_TOKENS}`));

/** One stop sequence: 1 to {@link MAX_STOP_SEQUENCE_CHARS} characters. */
export const StopSequenceSchema: z.ZodMiniType<string, string> = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(MAX_STOP_SEQUENCE_CHARS, `at most ${MAX_STOP_SEQUENCE_CHARS} characters`),
  );

/** `stopSequences`: at most {@link MAX_STOP_SEQUENCES} of them. */
export const StopSequencesSchema: z.ZodMiniType<string[], string[]> = z
  .array(StopSequenceSchema)
  .check(z.maxLength(MAX_STOP_SEQUENCES, `at most ${MAX_STOP_SEQUENCES} stop sequences`));

/**
 * A session id: 1 to {@link MAX_SESSION_ID_CHARS} printable ASCII characters, no leading or trailing
 * space. It travels as an HTTP header value (session affinity), where a CR, LF or NUL would be refused or
 * worse.
 */
export const SessionIdSchema: z.ZodMiniType<string, string> = z
  .string()
  .check(
    z.maxLength(MAX_SESSION_ID_CHARS, `at most ${MAX_SESSION_ID_CHARS} characters`),
    z.regex(
      /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/,
      "printable ASCII without leading or trailing blanks",
    ),
  );

/** Free-form tags: at most 32, keys up to 64 characters, values up to 512. */
const MetadataSchema = z
  .record(z.string().check(z.minLength(1), z.maxLength(64)), z.string().check(z.maxLength(512)))
  .check(z.refine((value) => Object.keys(value).length <= 32, "at most 32 entries"));

/** Validates the serialisable part of {@link CallOptions} (everything but `signal`), for HTTP bodies and config. */
export const CallOptionsSchema: z.ZodMiniType<
  Omit<CallOptions, "signal">,
  Omit<CallOptions, "signal">
> = z.strictObject({
  maxTokens: z.optional(MaxTokensSchema),
  temperature: z.optional(z.number().check(z.minimum(0), z.maximum(2))),
  topP: z.optional(z.number().check(z.minimum(0), z.maximum(1))),
  stopSequences: z.optional(StopSequencesSchema),
  thinking: z.optional(ThinkingSchema),
  toolChoice: z.optional(ToolChoiceSchema),
  cache: z.optional(CacheOptionSchema),
  parallelToolCalls: z.optional(z.boolean()),
  sessionId: z.optional(SessionIdSchema),
  metadata: z.optional(MetadataSchema),
  timeouts: z.optional(TimeoutsSchema),
  responseFormat: z.optional(ResponseFormatSchema),
});

/** Validates untrusted call options; throws a `ValidationError` naming the bad field (`options.maxTokens: …`). */
export function parseCallOptions(value: unknown, root = "options"): CallOptions {
  return validate(CallOptionsSchema, value ?? {}, root);
}
