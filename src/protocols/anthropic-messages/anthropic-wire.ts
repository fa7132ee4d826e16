/**
 * The Anthropic Messages API on the wire: the request body we send and the response and stream events we
 * read. Plain types, no runtime validation on the hot path: readers check the few fields they use and keep
 * every block they do not know verbatim (server tools, new block types) for `native.blocks`.
 *
 * @see https://docs.anthropic.com/en/api/messages
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 * @module
 */

/** Any content block. Known types below; unknown ones are carried as they came. */
export interface AnthropicBlock {
  type: string;
  [field: string]: unknown;
}

export interface AnthropicTextBlock extends AnthropicBlock {
  type: "text";
  text: string;
}

export interface AnthropicThinkingBlock extends AnthropicBlock {
  type: "thinking";
  thinking: string;
  signature: string;
}

export interface AnthropicRedactedThinkingBlock extends AnthropicBlock {
  type: "redacted_thinking";
  data: string;
}

export interface AnthropicToolUseBlock extends AnthropicBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** An image: base64 (`image/jpeg`, `image/png`, `image/gif`, `image/webp`) or an https URL. */
export interface AnthropicImageBlock extends AnthropicBlock {
  type: "image";
  source: { type: "base64"; media_type: string; data: string } | { type: "url"; url: string };
}

/**
 * A document: a PDF (base64 or an https URL) or plain text (`source.type: "text"`, the text itself).
 * `title` is shown to the model.
 */
export interface AnthropicDocumentBlock extends AnthropicBlock {
  type: "document";
  source:
    | { type: "base64"; media_type: "application/pdf"; data: string }
    | { type: "url"; url: string }
    | { type: "text"; media_type: "text/plain"; data: string };
  title?: string;
}

/** A tool's result: text, or text, image and document blocks. */
export interface AnthropicToolResultBlock extends AnthropicBlock {
  type: "tool_result";
  tool_use_id: string;
  content?: string | AnthropicBlock[];
  is_error?: boolean;
}

/** `cache_control` marker on a block, tool or system entry. */
export interface AnthropicCacheControl {
  type: "ephemeral";
  ttl?: "5m" | "1h";
}

export interface AnthropicMessageParam {
  role: "user" | "assistant";
  content: AnthropicBlock[];
}

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
  cache_control?: AnthropicCacheControl;
}

export type AnthropicToolChoice =
  | { type: "auto"; disable_parallel_tool_use?: boolean }
  | { type: "any"; disable_parallel_tool_use?: boolean }
  | { type: "none" }
  | { type: "tool"; name: string; disable_parallel_tool_use?: boolean };

export type AnthropicThinkingParam =
  | { type: "enabled"; budget_tokens: number }
  | { type: "adaptive" }
  | { type: "disabled" };

/**
 * `output_config`: the effort level, and structured output (`format`: the answer is JSON matching
 * `schema`; every object in it must close with `additionalProperties: false`).
 *
 * @see https://platform.claude.com/docs/en/build-with-claude/structured-outputs
 */
export interface AnthropicOutputConfig {
  effort?: "low" | "medium" | "high" | "max";
  format?: { type: "json_schema"; schema: Record<string, unknown> };
}

/** The request body of `POST /v1/messages` (and of Bedrock InvokeModel, minus `model`). */
export interface AnthropicRequestBody {
  model?: string;
  anthropic_version?: string;
  max_tokens: number;
  messages: AnthropicMessageParam[];
  system?: AnthropicTextBlock[];
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  thinking?: AnthropicThinkingParam;
  output_config?: AnthropicOutputConfig;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  metadata?: { user_id?: string };
  stream?: boolean;
  /** Server-side context management (compaction, clearing old tool results), as the provider's settings say. */
  context_management?: AnthropicContextManagement;
}

/**
 * Anthropic's server-side context management: `edits` such as
 * `{ type: "compact_20260112", trigger: { type: "input_tokens", value: 100000 } }` (the answer then starts
 * with a `compaction` block, replayed as it came) or `{ type: "clear_tool_uses_20250919" }`.
 * @see https://platform.claude.com/docs/en/build-with-claude/context-editing
 */
export interface AnthropicContextManagement {
  edits: ({ type: string } & Record<string, unknown>)[];
}

/** `usage` of a message or of a `message_delta` event. Every field may be missing or null. */
export interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation?: {
    ephemeral_5m_input_tokens?: number | null;
    ephemeral_1h_input_tokens?: number | null;
  } | null;
  output_tokens_details?: { thinking_tokens?: number | null } | null;
  /**
   * Server-side compaction: one entry per sampling iteration (`compaction`, then `message`). The top-level
   * counts are the last iteration's only; what the call was billed is their sum.
   */
  iterations?: AnthropicUsage[] | null;
  [field: string]: unknown;
}

/** A whole (non-streaming) response. */
export interface AnthropicMessage {
  id?: string;
  type?: string;
  role?: string;
  model?: string;
  content: AnthropicBlock[];
  stop_reason?: string | null;
  stop_sequence?: string | null;
  /** With a `refusal` stop: `{ type: "refusal", category, explanation }`. */
  stop_details?: { type?: string; explanation?: string | null; [field: string]: unknown } | null;
  usage?: AnthropicUsage | null;
  [field: string]: unknown;
}

/** The `error` object of an error response or of a mid-stream `error` event. */
export interface AnthropicErrorBody {
  type?: string;
  error?: { type?: string; message?: string } | null;
  request_id?: string;
}

/** One parsed stream event (the JSON of an SSE `data:` line, or of a Bedrock chunk). */
export type AnthropicStreamEvent =
  | { type: "message_start"; message: AnthropicMessage }
  | { type: "content_block_start"; index: number; content_block: AnthropicBlock }
  | { type: "content_block_delta"; index: number; delta: { type: string; [field: string]: unknown } }
  | { type: "content_block_stop"; index: number }
  | {
      type: "message_delta";
      delta: { stop_reason?: string | null; stop_sequence?: string | null; [field: string]: unknown };
      usage?: AnthropicUsage | null;
    }
  | { type: "message_stop"; [field: string]: unknown }
  | { type: "ping" }
  | ({ type: "error" } & AnthropicErrorBody);

/** The protocol's name, as `Provider.protocol` and `native.protocol`. */
export const ANTHROPIC_MESSAGES = "anthropic-messages";
