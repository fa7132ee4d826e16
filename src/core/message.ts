/**
 * The neutral conversation: messages, tool calls and tool results, and the provider-scoped `native`
 * passthrough that carries what the neutral fields cannot (signed thinking, reasoning items).
 *
 * Zod schemas (zod/mini, tree-shakable) are the source of truth for anything that crosses a trust
 * boundary; the TypeScript types are inferred from them. `*Input` types are what callers may write
 * (fields with defaults may be omitted); the plain types are what the library hands back.
 *
 * @module
 */
import * as z from "zod/mini";
import type { Content } from "./content.ts";
import { ContentSchema } from "./content-schema.ts";
import { validate } from "./validation-error.ts";

/** A tool call the model asked for. `id` ties it to its {@link ToolResult}. */
export interface ToolCall {
  id: string;
  name: string;
  /** The parsed arguments. Always an object: malformed or non-object model output degrades to `{}`. */
  arguments: Record<string, unknown>;
  /**
   * The arguments exactly as the model produced them, when the protocol delivers text (OpenAI's
   * `function.arguments`, streamed tool input). Kept so a truncated or malformed call can be replayed
   * as it was, and so nothing is lost when parsing fails.
   */
  argumentsText?: string;
}

/** A {@link ToolCall} as callers may write it: `arguments` defaults to `{}`. */
export type ToolCallInput = Omit<ToolCall, "arguments"> & { arguments?: Record<string, unknown> };

/**
 * The result of running a tool, sent back to the model. A failed tool is a result with `isError`. Its
 * `content` is text, or parts (a screenshot, a PDF) where the target takes them.
 */
export interface ToolResult {
  callId: string;
  content: Content;
  isError: boolean;
  /** The tool's name, for protocols that want it beside the call id. */
  name?: string;
}

/** A {@link ToolResult} as callers may write it: `content` defaults to `""`, `isError` to `false`. */
export type ToolResultInput = Omit<ToolResult, "content" | "isError"> & {
  content?: Content;
  isError?: boolean;
};

/**
 * A provider's own content items for one assistant turn, verbatim and in emission order (Anthropic
 * thinking / redacted_thinking / text / tool_use blocks; Responses reasoning / message / function_call
 * items). An adapter replays `blocks` only when `protocol`, `origin` and `model` all match its target;
 * otherwise it rebuilds the turn from the neutral fields and drops the reasoning — never demotes it to text.
 */
export interface Native {
  /** Wire protocol that produced the blocks, e.g. `"anthropic-messages"`, `"openai-responses"`. */
  protocol: string;
  /** Endpoint kind that produced them, e.g. `"anthropic"` (first-party API) or `"bedrock"`. */
  origin: string;
  /** The model that produced them: reasoning is bound to it. */
  model: string;
  blocks: unknown[];
}

/** Who said a message. Tool results travel in `tool` messages (or in `user` messages' `toolResults`). */
export type Role = "system" | "user" | "assistant" | "tool";

/** One message of the neutral conversation. */
export interface Message {
  role: Role;
  /**
   * Text, or parts (text, images, files). What a provider answers is always text: read
   * `response.message.content` as a string there (`contentText` turns any content into text).
   */
  content: Content;
  toolCalls: ToolCall[];
  toolResults: ToolResult[];
  /** Set when the harness invented this message (a compaction summary, say), not a model or a user. */
  synthetic: boolean;
  native?: Native;
}

/** A message as callers may write it: `{ role: "user", content: "hi" }` is complete. */
export interface MessageInput {
  role: Role;
  content?: Content;
  toolCalls?: ToolCallInput[];
  toolResults?: ToolResultInput[];
  synthetic?: boolean;
  native?: Native;
}

/** Validates a {@link ToolCall}, filling `arguments`. */
export const ToolCallSchema: z.ZodMiniType<ToolCall, ToolCallInput> = z.strictObject({
  id: z.string(),
  name: z.string(),
  arguments: z._default(z.record(z.string(), z.unknown()), () => ({})),
  argumentsText: z.optional(z.string()),
});

/** Validates a {@link ToolResult}, filling `content` and `isError`. */
export const ToolResultSchema: z.ZodMiniType<ToolResult, ToolResultInput> = z.strictObject({
  callId: z.string(),
  content: z._default(ContentSchema, ""),
  isError: z._default(z.boolean(), false),
  name: z.optional(z.string()),
});

/** Validates a {@link Native}. */
export const NativeSchema: z.ZodMiniType<Native, Native> = z.strictObject({
  protocol: z.string(),
  origin: z.string(),
  model: z.string(),
  blocks: z.array(z.unknown()),
});

/** Validates a {@link Role}. */
export const RoleSchema: z.ZodMiniType<Role, Role> = z.enum(["system", "user", "assistant", "tool"]);

/** Validates a {@link Message} from untrusted input, filling its defaults. */
export const MessageSchema: z.ZodMiniType<Message, MessageInput> = z.strictObject({
  role: RoleSchema,
  content: z._default(ContentSchema, ""),
  toolCalls: z._default(z.array(ToolCallSchema), () => []),
  toolResults: z._default(z.array(ToolResultSchema), () => []),
  synthetic: z._default(z.boolean(), false),
  native: z.optional(NativeSchema),
});

/**
 * Validates untrusted messages (an HTTP body, a stored history) and fills defaults. Throws a
 * `ValidationError` naming each bad field, e.g. `messages[2].toolCalls[0].id: Invalid input`.
 */
export function parseMessages(value: unknown, root = "messages"): Message[] {
  return validate(z.array(MessageSchema), value, root);
}

/**
 * Fills the defaults of typed messages without validating them (the compiler already did). Never throws:
 * use {@link parseMessages} for values that come from outside the program.
 */
export function normalizeMessages(messages: readonly MessageInput[]): Message[] {
  return messages.map(normalizeMessage);
}

/** {@link normalizeMessages} for one message. */
export function normalizeMessage(message: MessageInput): Message {
  const normalized: Message = {
    role: message.role,
    content: message.content ?? "",
    toolCalls: (message.toolCalls ?? []).map((call) => ({
      ...call,
      arguments: call.arguments ?? {},
    })),
    toolResults: (message.toolResults ?? []).map((result) => ({
      ...result,
      content: result.content ?? "",
      isError: result.isError ?? false,
    })),
    synthetic: message.synthetic ?? false,
  };
  if (message.native) normalized.native = message.native;
  return normalized;
}
