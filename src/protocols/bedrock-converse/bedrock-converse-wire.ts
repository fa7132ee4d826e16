/**
 * The Bedrock Converse API on the wire: the request body of `Converse` / `ConverseStream`, the response of
 * `Converse`, and the events of `ConverseStream` (the JSON payloads of its event-stream frames). Plain
 * types, no runtime validation on the hot path: readers check the few fields they use and keep every block
 * they do not know verbatim for `native.blocks`.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html
 * @module
 */

/** Any content block: an object with one member naming its kind (`text`, `toolUse`, …). */
export interface ConverseBlock {
  text?: string;
  toolUse?: ConverseToolUse;
  toolResult?: ConverseToolResult;
  reasoningContent?: ConverseReasoningContent;
  cachePoint?: ConverseCachePoint;
  image?: ConverseImage;
  document?: ConverseDocument;
  [field: string]: unknown;
}

/** Where an image's or a document's bytes are: inline (base64 in JSON) or an S3 object. */
export type ConverseMediaSource = { bytes: string } | { s3Location: { uri: string; bucketOwner?: string } };

/** `{ image }`: `format` png, jpeg, gif or webp. */
export interface ConverseImage {
  format: string;
  source: ConverseMediaSource;
  [field: string]: unknown;
}

/** `{ document }`: `format` pdf, csv, doc, docx, xls, xlsx, html, txt or md; `name` unique in the request. */
export interface ConverseDocument {
  format: string;
  name: string;
  source: ConverseMediaSource;
  [field: string]: unknown;
}

/** `{ toolUse }`: a call the model made. `type` is `"server_tool_use"` for calls the service ran itself. */
export interface ConverseToolUse {
  toolUseId: string;
  name: string;
  input: Record<string, unknown>;
  type?: string;
  [field: string]: unknown;
}

/** One item of a tool result's `content`: `text`, `json`, `image` or `document`. */
export interface ConverseToolResultContent {
  text?: string;
  json?: unknown;
  image?: ConverseImage;
  document?: ConverseDocument;
  [field: string]: unknown;
}

/** `{ toolResult }`: the answer to a `toolUse` (in a user turn; in an assistant turn for server tools). */
export interface ConverseToolResult {
  toolUseId: string;
  content: ConverseToolResultContent[];
  /** Only Anthropic Claude and Amazon Nova models take it. */
  status?: "success" | "error";
  [field: string]: unknown;
}

/**
 * `{ reasoningContent }`: either readable reasoning with its signature, or encrypted (redacted) reasoning,
 * base64 in JSON. Replayed byte for byte to the model that produced it.
 */
export interface ConverseReasoningContent {
  reasoningText?: { text: string; signature?: string };
  redactedContent?: string;
  [field: string]: unknown;
}

/** `{ cachePoint }`: a prompt-cache checkpoint after the content before it. */
export interface ConverseCachePoint {
  type: "default";
  ttl?: "5m" | "1h";
}

/** A system-prompt entry: text, or a cache checkpoint. */
export type ConverseSystemBlock = { text: string } | { cachePoint: ConverseCachePoint };

export interface ConverseMessage {
  role: "user" | "assistant";
  content: ConverseBlock[];
}

export interface ConverseToolSpec {
  name: string;
  description?: string;
  inputSchema: { json: Record<string, unknown> };
}

/** An entry of `toolConfig.tools`: a tool, or a cache checkpoint after the tools before it. */
export type ConverseTool = { toolSpec: ConverseToolSpec } | { cachePoint: ConverseCachePoint };

/** `toolConfig.toolChoice`. Converse has no "none": that is expressed by sending no tools. */
export type ConverseToolChoice =
  | { auto: Record<string, never> }
  | { any: Record<string, never> }
  | { tool: { name: string } };

export interface ConverseToolConfig {
  tools: ConverseTool[];
  toolChoice?: ConverseToolChoice;
}

export interface ConverseInferenceConfig {
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
}

/** The request body of `POST /model/{modelId}/converse` and `/converse-stream` (the model is in the URL). */
export interface ConverseRequestBody {
  messages: ConverseMessage[];
  system?: ConverseSystemBlock[];
  inferenceConfig?: ConverseInferenceConfig;
  toolConfig?: ConverseToolConfig;
  /** Model-specific fields passed through to the model (Claude's `thinking`, say). */
  additionalModelRequestFields?: Record<string, unknown>;
  /** Tags for invocation logs (at most 16 pairs). */
  requestMetadata?: Record<string, string>;
  /**
   * Native structured output: `{ textFormat: { type: "json_schema", structure: { jsonSchema: { name,
   * schema, description? } } } }`, the schema a JSON **string**.
   */
  outputConfig?: Record<string, unknown>;
  [field: string]: unknown;
}

/**
 * Converse usage. `inputTokens` excludes cache reads and writes (as Anthropic's `input_tokens` does);
 * `cacheReadInputTokenCount` / `cacheWriteInputTokenCount` are older duplicates of the cache fields.
 */
export interface ConverseUsage {
  inputTokens?: number | null;
  outputTokens?: number | null;
  totalTokens?: number | null;
  cacheReadInputTokens?: number | null;
  cacheWriteInputTokens?: number | null;
  cacheReadInputTokenCount?: number | null;
  cacheWriteInputTokenCount?: number | null;
  [field: string]: unknown;
}

/** The response of `Converse`. */
export interface ConverseResponse {
  output?: { message?: { role?: string; content?: ConverseBlock[] } | null } | null;
  stopReason?: string | null;
  usage?: ConverseUsage | null;
  metrics?: { latencyMs?: number } | null;
  additionalModelResponseFields?: unknown;
  [field: string]: unknown;
}

/** Payloads of the `ConverseStream` events, by `:event-type`. Every payload may also carry `p` (padding). */
export interface ConverseStreamEvents {
  messageStart: { role?: string };
  contentBlockStart: {
    contentBlockIndex: number;
    start?: {
      toolUse?: Partial<ConverseToolUse>;
      toolResult?: Partial<ConverseToolResult>;
      [member: string]: unknown;
    } | null;
  };
  contentBlockDelta: {
    contentBlockIndex: number;
    delta?: {
      text?: string;
      reasoningContent?: { text?: string; signature?: string; redactedContent?: string };
      toolUse?: { input?: string };
      toolResult?: ConverseToolResultContent[];
      [field: string]: unknown;
    } | null;
  };
  contentBlockStop: { contentBlockIndex: number };
  messageStop: { stopReason?: string | null; additionalModelResponseFields?: unknown };
  metadata: { usage?: ConverseUsage | null; metrics?: unknown; trace?: unknown };
}

/** The protocol's name, as `Provider.protocol` and `native.protocol`. */
export const BEDROCK_CONVERSE = "bedrock-converse";

/** `native.origin` of everything Bedrock produced (Converse and InvokeModel alike). */
export const BEDROCK_ORIGIN = "bedrock";
