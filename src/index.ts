/**
 * modelwire: one message shape for Anthropic, OpenAI (Chat Completions and Responses), Amazon Bedrock and
 * OpenAI-compatible servers, on nothing but `fetch` and Web Streams.
 *
 * The library entry. It never imports the Worker (`src/worker/`), Node APIs or Cloudflare APIs.
 *
 * @module
 */

/** The package version. */
export const VERSION = "0.1.0";

export {
  type AgentEvent,
  type AgentResult,
  type AgentStatus,
  type AgentTool,
  type RunAgentOptions,
  runAgent,
} from "./agent/run-agent.ts";
export type { Workflow } from "./agent/workflow.ts";
export {
  type CacheOption,
  CacheOptionSchema,
  type CallOptions,
  CallOptionsSchema,
  parseCallOptions,
  type Thinking,
  ThinkingSchema,
  type Timeouts,
  type ToolChoice,
  ToolChoiceSchema,
} from "./core/call-options.ts";
export { collectStream, parseToolArguments, StreamAccumulator } from "./core/collect-stream.ts";
export {
  type Message,
  type MessageInput,
  MessageSchema,
  type Native,
  NativeSchema,
  normalizeMessage,
  normalizeMessages,
  parseMessages,
  type Role,
  RoleSchema,
  type ToolCall,
  type ToolCallInput,
  ToolCallSchema,
  type ToolResult,
  type ToolResultInput,
  ToolResultSchema,
} from "./core/message.ts";
export type { Provider } from "./core/provider.ts";
export {
  errorKindFromStatus,
  isRetryableKind,
  MAX_RETRY_AFTER_MS,
  MAX_UPSTREAM_BODY,
  PROVIDER_ERROR_KINDS,
  ProviderError,
  type ProviderErrorInit,
  type ProviderErrorJSON,
  type ProviderErrorKind,
  redactSecrets,
} from "./core/provider-error.ts";
export {
  type Response,
  ResponseSchema,
  type ServedBy,
  ServedBySchema,
  type StopReason,
  StopReasonSchema,
} from "./core/response.ts";
export {
  coalesceDeltas,
  type DoneEvent,
  isContentEvent,
  type ReasoningDeltaEvent,
  type StreamEvent,
  type StreamEventType,
  type TextDeltaEvent,
  type ToolCallDeltaEvent,
  type ToolCallEndEvent,
  type ToolCallStartEvent,
  type UsageEvent,
} from "./core/stream-event.ts";
export { holdUntilContent, requireDone, type StreamSource } from "./core/stream-guards.ts";
export { type JsonSchema, normalizeToolSpecs, type ToolSpec, type ToolSpecInput } from "./core/tool-spec.ts";
export { addUsage, totalInputTokens, Usage, UsageSchema } from "./core/usage.ts";
export { formatPath, ValidationError, type ValidationIssue } from "./core/validation-error.ts";
export {
  BEDROCK_CONVERSE,
  mapBedrockException,
  mapBedrockHttpError,
} from "./protocols/bedrock-converse/index.ts";
export type { OpenAIChatEndpointProfile, TextToolCallFormat } from "./protocols/openai-chat/index.ts";
export type { OpenAIResponsesOutputItem } from "./protocols/openai-responses/index.ts";
export {
  type AffinityCall,
  type AffinityResolver,
  type AffinityTarget,
  sessionAffinity,
  staticAffinity,
} from "./providers/affinity.ts";
export { type AnthropicSettings, anthropic } from "./providers/anthropic.ts";
export {
  type AnthropicModelProfile,
  type AnthropicThinkingMode,
  anthropicModelProfile,
  type ModelPrices,
} from "./providers/anthropic-model-profiles.ts";
export {
  BEDROCK_ANTHROPIC_VERSION,
  BEDROCK_BEARER_ENV,
  type BedrockApi,
  type BedrockAuth,
  type BedrockCredentials,
  type BedrockSettings,
  bedrock,
  encodeModelId,
} from "./providers/bedrock.ts";
export { retryAfterMs, type TransportContext, toProviderError } from "./providers/http.ts";
export {
  type OpenAIChatEndpoint,
  type OpenAIChatEndpointKind,
  type OpenAIChatSettings,
  openAIChatEndpointProfile,
  openaiChat,
} from "./providers/openai-chat.ts";
export {
  type OpenAIResponsesCallOptions,
  type OpenAIResponsesProvider,
  type OpenAIResponsesSettings,
  openaiResponses,
} from "./providers/openai-responses.ts";
export {
  type AffinityPool,
  type AffinityPoolOptions,
  affinityPool,
  type CacheImpact,
  type CacheImpactOptions,
  type CooldownConfig,
  type CooldownStore,
  type CreateProviderOptions,
  cacheImpact,
  checkPause,
  costOf,
  createProvider,
  type ErrorTelemetry,
  extractBoxed,
  type FallbackCooldown,
  type FallbackEntry,
  type FallbackEvent,
  type FallbackFailure,
  type FallbackOptions,
  type FallbackTelemetry,
  type FallbackTrigger,
  fallback,
  isStopStatus,
  type PauseLogger,
  type PauseOptions,
  type PauseState,
  type PinStore,
  type PriceSource,
  type ProtocolName,
  type ProtocolOfOptions,
  type ProviderConfig,
  type ProviderFactory,
  type ProviderFactoryContext,
  protocolOf,
  providerAffinity,
  type RequestTelemetry,
  type ResponseTelemetry,
  type RetryConfig,
  type RetryEvent,
  type RetryOptions,
  rateLimitResetMs,
  retry,
  type SessionAffinity,
  type SessionAffinityResolver,
  type TelemetryCall,
  type TelemetryEvent,
  type TelemetryOptions,
  type TelemetrySink,
  type TokenPrices,
  withTelemetry,
} from "./substrate/index.ts";
export {
  type AwsEventFrame,
  AwsEventStreamDecoder,
  type AwsEventStreamOptions,
  type AwsFrameInfo,
  type AwsHeaderValue,
  DEFAULT_AWS_MAX_FRAME_BYTES,
  decodeAwsEventFrame,
  frameInfo,
  readAwsEventStream,
} from "./wire/aws-event-stream.ts";
export { crc32 } from "./wire/crc32.ts";
export {
  DEFAULT_SSE_MAX_BUFFER,
  type ReadSseOptions,
  readSse,
  readSseBatches,
  type SseEvent,
} from "./wire/sse.ts";
export { WireError, type WireErrorCode } from "./wire/wire-error.ts";
