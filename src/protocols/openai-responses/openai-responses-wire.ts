/**
 * The OpenAI Responses API on the wire, as OpenAI and the Responses-compatible servers (DeepSeek, OpenRouter,
 * gateways and proxies) speak it. Plain types; readers check the fields they use and keep the rest, because
 * output items are replayed verbatim (`encrypted_content`, `phase`, ids, hosted-tool items).
 *
 * @see https://platform.openai.com/docs/api-reference/responses
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 * @module
 */

/** The protocol's name, as `Provider.protocol` and `native.protocol`. */
export const OPENAI_RESPONSES = "openai-responses";

/**
 * One output item (`reasoning`, `message`, `function_call`, `custom_tool_call`, `web_search_call`, …), kept
 * as the server sent it. Only `type` is relied on; every other field rides along.
 */
export interface OpenAIResponsesOutputItem {
  type: string;
  id?: string;
  [field: string]: unknown;
}

/** A reasoning item: encrypted reasoning to replay, plus readable summary / reasoning-text parts. */
export interface OpenAIResponsesReasoningItem extends OpenAIResponsesOutputItem {
  type: "reasoning";
  encrypted_content?: string | null;
  summary?: Array<{ type?: string; text?: string }>;
  /** Raw reasoning text (`reasoning_text` parts), sent by DeepSeek, OpenRouter and gpt-oss servers. */
  content?: Array<{ type?: string; text?: string }>;
}

/** A function call the model made; `call_id` ties it to its `function_call_output`. */
export interface OpenAIResponsesFunctionCallItem extends OpenAIResponsesOutputItem {
  type: "function_call";
  call_id: string;
  name: string;
  /** The arguments exactly as the model produced them (JSON text). */
  arguments: string;
}

/** Text in an input message or a tool call's output. */
export interface OpenAIResponsesInputText {
  type: "input_text";
  text: string;
}

/** An image: `image_url` is an http(s) URL or a base64 `data:` URL. */
export interface OpenAIResponsesInputImage {
  type: "input_image";
  image_url: string;
  /** `low`, `high` or `auto` (what modelwire sends, as the API's default). */
  detail: "auto" | "low" | "high";
}

/** A file (a document): inline as a base64 `data:` URL with its `filename`, or by `file_url`. */
export interface OpenAIResponsesInputFile {
  type: "input_file";
  file_data?: string;
  file_url?: string;
  /** The API reads the file's type from its extension. */
  filename?: string;
}

/** One part of an input message's content, or of a tool call's output. */
export type OpenAIResponsesInputContent =
  | OpenAIResponsesInputText
  | OpenAIResponsesInputImage
  | OpenAIResponsesInputFile;

/** An easy input message: a role and plain text, or (user messages) a list of input parts. */
export interface OpenAIResponsesEasyMessage {
  role: "user" | "assistant" | "system" | "developer";
  content: string | OpenAIResponsesInputContent[];
}

/**
 * The result of a function call (or of a custom tool call: `custom_tool_call_output`): text, or a list of
 * input parts when the tool returned images or files.
 */
export interface OpenAIResponsesCallOutputItem {
  type: "function_call_output" | "custom_tool_call_output";
  call_id: string;
  output: string | OpenAIResponsesInputContent[];
}

/** One item of the request's `input`. Replayed output items are sent as they came. */
export type OpenAIResponsesInputItem =
  | OpenAIResponsesEasyMessage
  | OpenAIResponsesCallOutputItem
  | OpenAIResponsesOutputItem;

export interface OpenAIResponsesFunctionTool {
  type: "function";
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
  strict: boolean;
}

export type OpenAIResponsesToolChoice = "auto" | "none" | "required" | { type: "function"; name: string };

/** `text.format`: structured output. */
export type OpenAIResponsesTextFormat =
  | { type: "text" }
  | { type: "json_object" }
  | {
      type: "json_schema";
      name: string;
      schema: Record<string, unknown>;
      strict: boolean;
      description?: string;
    };

/** `text`: the answer's format (and, on models that take it, `verbosity`). */
export interface OpenAIResponsesTextConfig {
  format?: OpenAIResponsesTextFormat;
  verbosity?: "low" | "medium" | "high";
  [field: string]: unknown;
}

export type OpenAIResponsesReasoningEffort = "none" | "minimal" | "low" | "medium" | "high";

export interface OpenAIResponsesRequestBody {
  model: string;
  input: OpenAIResponsesInputItem[];
  instructions?: string;
  tools?: OpenAIResponsesFunctionTool[];
  tool_choice?: OpenAIResponsesToolChoice;
  parallel_tool_calls?: boolean;
  max_output_tokens?: number;
  temperature?: number;
  top_p?: number;
  reasoning?: { effort?: OpenAIResponsesReasoningEffort; summary?: "auto" | "concise" | "detailed" };
  text?: OpenAIResponsesTextConfig;
  /** Whether the server keeps the response (needed for `previous_response_id` on a later call). */
  store: boolean;
  include?: string[];
  previous_response_id?: string;
  metadata?: Record<string, string>;
  prompt_cache_key?: string;
  stream?: boolean;
}

/** `usage` of a response. `input_tokens` includes cached (and cache-written) tokens. */
export interface OpenAIResponsesUsage {
  input_tokens?: number | null;
  input_tokens_details?: { cached_tokens?: number | null; cache_write_tokens?: number | null } | null;
  output_tokens?: number | null;
  output_tokens_details?: { reasoning_tokens?: number | null } | null;
  total_tokens?: number | null;
  [field: string]: unknown;
}

/** A response object: the body of a non-streaming call, and the `response` of lifecycle events. */
export interface OpenAIResponsesResponse {
  id?: string;
  object?: string;
  model?: string;
  /** `completed`, `incomplete`, `failed`, `in_progress`, `queued`, `cancelled`. */
  status?: string;
  output?: unknown[] | null;
  usage?: OpenAIResponsesUsage | null;
  error?: { code?: string | number | null; message?: string | null; type?: string | null } | null;
  incomplete_details?: { reason?: string | null } | null;
  [field: string]: unknown;
}

/** One streaming event (`response.output_text.delta`, `response.completed`, `error`, …). */
export interface OpenAIResponsesStreamEvent {
  type: string;
  sequence_number?: number;
  output_index?: number;
  content_index?: number;
  summary_index?: number;
  item_id?: string;
  item?: OpenAIResponsesOutputItem | null;
  delta?: string;
  text?: string;
  arguments?: string;
  input?: string;
  response?: OpenAIResponsesResponse | null;
  /** `error` events: OpenAI nests the error here; some servers put `code` / `message` at the top. */
  error?: { code?: string | number | null; message?: string | null; type?: string | null } | null;
  code?: string | number | null;
  message?: string | null;
  [field: string]: unknown;
}
