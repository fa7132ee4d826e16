/**
 * OpenAI Chat Completions on the wire, as the hosted API and the OpenAI-compatible servers (vLLM, Ollama,
 * DeepSeek, OpenRouter, Groq, gateways) speak it. Plain types; readers check the fields they use and
 * tolerate the variants (`reasoning_content` vs `reasoning`, usage in `x_groq`, errors inside chunks).
 *
 * @see https://platform.openai.com/docs/api-reference/chat
 * @module
 */
import type { TextToolCallFormat } from "../text-tool-calls/index.ts";

export interface OpenAIChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/**
 * A part of a user message's `content` (tool and system messages take text parts only).
 *
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages
 */
export type OpenAIChatContentPart =
  | { type: "text"; text: string }
  /** An image: a `data:` URL of inline bytes, or an http(s) URL the server downloads. */
  | { type: "image_url"; image_url: { url: string; detail?: "auto" | "low" | "high" } }
  /** A PDF: `file_data` is a `data:application/pdf;base64,…` URL (Chat Completions takes no file URL). */
  | { type: "file"; file: { file_data?: string; file_id?: string; filename?: string } }
  /** Audio (audio-capable models): base64 bytes, `wav` or `mp3`. */
  | { type: "input_audio"; input_audio: { data: string; format: "wav" | "mp3" } };

export interface OpenAIChatMessageParam {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  /** Text, or (user messages) parts; `null` on an assistant turn that only calls tools. */
  content: string | OpenAIChatContentPart[] | null;
  tool_calls?: OpenAIChatToolCall[];
  tool_call_id?: string;
  /** DeepSeek-style servers want the turn's reasoning back while a tool loop runs. */
  reasoning_content?: string;
}

export interface OpenAIChatTool {
  type: "function";
  function: { name: string; description?: string; parameters: Record<string, unknown>; strict?: boolean };
}

export type OpenAIChatToolChoice =
  | "auto"
  | "none"
  | "required"
  | { type: "function"; function: { name: string } };

export interface OpenAIChatRequestBody {
  model: string;
  messages: OpenAIChatMessageParam[];
  tools?: OpenAIChatTool[];
  tool_choice?: OpenAIChatToolChoice;
  parallel_tool_calls?: boolean;
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string[];
  reasoning_effort?: "none" | "minimal" | "low" | "medium" | "high";
  stream?: boolean;
  stream_options?: { include_usage: boolean };
  user?: string;
  response_format?: OpenAIChatResponseFormat;
}

/**
 * Structured output: `json_schema` (Structured Outputs) or `json_object` (JSON mode).
 *
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-response_format
 */
export type OpenAIChatResponseFormat =
  | { type: "text" }
  | { type: "json_object" }
  | {
      type: "json_schema";
      json_schema: { name: string; schema: Record<string, unknown>; strict?: boolean; description?: string };
    };

/** `usage` of a completion or of the trailing usage chunk. */
export interface OpenAIChatUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  total_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
  /** DeepSeek: cache hits and misses instead of (or beside) `prompt_tokens_details`. */
  prompt_cache_hit_tokens?: number | null;
  prompt_cache_miss_tokens?: number | null;
  [field: string]: unknown;
}

/** The assistant message of a completion. */
export interface OpenAIChatAssistantMessage {
  role?: string;
  content?: string | null;
  refusal?: string | null;
  tool_calls?: Array<
    Partial<OpenAIChatToolCall> & { function?: { name?: string; arguments?: string } }
  > | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  [field: string]: unknown;
}

export interface OpenAIChatCompletion {
  id?: string;
  model?: string;
  choices?: Array<{ index?: number; message?: OpenAIChatAssistantMessage; finish_reason?: string | null }>;
  usage?: OpenAIChatUsage | null;
  [field: string]: unknown;
}

export interface OpenAIChatToolCallDelta {
  index?: number;
  id?: string | null;
  type?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

export interface OpenAIChatChunk {
  id?: string;
  model?: string;
  choices?: Array<{
    index?: number;
    delta?: {
      role?: string | null;
      content?: string | null;
      refusal?: string | null;
      reasoning_content?: string | null;
      reasoning?: string | null;
      tool_calls?: OpenAIChatToolCallDelta[] | null;
    } | null;
    finish_reason?: string | null;
  }>;
  usage?: OpenAIChatUsage | null;
  /** OpenRouter reports failures inside an ordinary chunk; Groq sends `event: error` with this shape. */
  error?: { message?: string; code?: string | number; type?: string } | null;
  /** Groq puts usage here. */
  x_groq?: { usage?: OpenAIChatUsage | null } | null;
  [field: string]: unknown;
}

/**
 * What an OpenAI-compatible server accepts and emits. "OpenAI-compatible" is a spectrum: the profile says
 * which fields to send and how to read the answer.
 */
export interface OpenAIChatEndpointProfile {
  /** `"openai"`, `"vllm"`, `"ollama"`, `"generic"` or your own name; it is `native.origin`. */
  kind: string;
  /** Where the output limit goes: hosted OpenAI wants `max_completion_tokens`, most servers `max_tokens`. */
  maxTokensField: "max_completion_tokens" | "max_tokens";
  /** Send `stream_options: { include_usage: true }` (the trailing usage chunk). */
  streamUsage: boolean;
  /** Send `reasoning_effort` for the `thinking` option. */
  reasoningEffort: boolean;
  /** Send `parallel_tool_calls` when the call sets it. */
  parallelToolCalls: boolean;
  /** The server puts tool calls in the text in this format (no native `tool_calls`): parse them out. */
  textToolCalls?: TextToolCallFormat | undefined;
  /** Send an assistant turn's `reasoning_content` back (DeepSeek-style tool loops). */
  echoReasoning: boolean;
  /** Hosted-OpenAI reasoning-model rules (no temperature / top_p on o-series and gpt-5). */
  openaiModelRules: boolean;
  /**
   * What the server takes as `response_format` (default `"json_schema"`: both `json_schema` and
   * `json_object`, as hosted OpenAI, vLLM and Ollama do). `"json_object"`: JSON mode only (DeepSeek), so a
   * schema goes as a forced output tool; `"none"`: no `response_format` at all, both go as that tool.
   */
  responseFormat?: "json_schema" | "json_object" | "none" | undefined;
}

/** The protocol's name, as `Provider.protocol` and `native.protocol`. */
export const OPENAI_CHAT = "openai-chat";
