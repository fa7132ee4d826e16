/**
 * modelwire: one message shape for Anthropic, OpenAI (Chat Completions and Responses), Amazon Bedrock,
 * Google Gemini and OpenAI-compatible servers, on nothing but `fetch` and Web Streams.
 *
 * The library entry: what an application needs — the providers and their settings, the neutral types,
 * the errors, `collectStream`, the substrate (`fallback`, `retry`, `createProvider`, affinity, pause,
 * cost, telemetry) and `runAgent`. Framing and decoders are in `modelwire/wire`; protocol internals and
 * the contract for protocol authors in `modelwire/protocols`; `FakeProvider` in `modelwire/testing`.
 * It never imports the Worker (`src/worker/`), Node APIs or Cloudflare APIs.
 *
 * @module
 */

/** The package version. */
export const VERSION = "0.1.0";

// The agent loop and workflows.
export {
  type AgentCompaction,
  type AgentEvent,
  type AgentResult,
  type AgentStatus,
  type AgentTool,
  type CompactionReport,
  type RunAgentOptions,
  runAgent,
} from "./agent/run-agent.ts";
export type { Workflow } from "./agent/workflow.ts";
export { base64ToBytes, bytesToBase64 } from "./core/base64.ts";
// The neutral types.
export {
  type CacheOption,
  type CallOptions,
  parseCallOptions,
  type ResponseFormat,
  type Thinking,
  type Timeouts,
  type ToolChoice,
} from "./core/call-options.ts";
export { collectStream } from "./core/collect-stream.ts";
export {
  type Content,
  type ContentPart,
  contentText,
  type FilePart,
  type ImagePart,
  type InlineUrlOptions,
  inlineUrlParts,
  type TextPart,
} from "./core/content.ts";
export {
  type Message,
  type MessageInput,
  type Native,
  normalizeMessages,
  parseMessages,
  type Role,
  type ToolCall,
  type ToolCallInput,
  type ToolResult,
  type ToolResultInput,
} from "./core/message.ts";
export type { Provider } from "./core/provider.ts";
export {
  ProviderError,
  type ProviderErrorInit,
  type ProviderErrorJSON,
  type ProviderErrorKind,
} from "./core/provider-error.ts";
export type { AssistantMessage, Response, ServedBy, StopReason } from "./core/response.ts";
export type { StreamEvent } from "./core/stream-event.ts";
export { StructuredOutputError } from "./core/structured-output.ts";
export type { ToolSpec, ToolSpecInput } from "./core/tool-spec.ts";
export { addUsage, totalInputTokens, type Usage } from "./core/usage.ts";
export { ValidationError, type ValidationIssue } from "./core/validation-error.ts";

// The providers and their settings.
export type { OpenAIChatEndpointProfile, TextToolCallFormat } from "./protocols/openai-chat/index.ts";
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
  type BedrockApi,
  type BedrockAuth,
  type BedrockCredentials,
  type BedrockSettings,
  bedrock,
} from "./providers/bedrock.ts";
export { type GeminiSettings, gemini } from "./providers/gemini.ts";
export type { GoogleServiceAccount } from "./providers/google-service-account.ts";
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
export { type VertexPublisher, type VertexSettings, vertex } from "./providers/vertex.ts";

// The substrate: every wrapper is itself a Provider.
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
  extractBoxed,
  type FallbackCooldown,
  type FallbackEntry,
  type FallbackEvent,
  type FallbackFailure,
  type FallbackOptions,
  type FallbackTrigger,
  fallback,
  isStopStatus,
  type OtlpSink,
  type OtlpSinkOptions,
  otlpSink,
  type PauseLogger,
  type PauseOptions,
  type PauseState,
  type PinStore,
  type PriceSource,
  type ProtocolName,
  type ProtocolOfOptions,
  type ProviderBuild,
  type ProviderConfig,
  type ProviderFactories,
  type ProviderFactory,
  type ProviderFactoryContext,
  protocolOf,
  providerAffinity,
  type RetryConfig,
  type RetryEvent,
  type RetryOptions,
  retry,
  type SessionAffinity,
  type SessionAffinityResolver,
  type TelemetryEvent,
  type TelemetryOptions,
  type TelemetrySink,
  type TokenPrices,
  withTelemetry,
} from "./substrate/index.ts";
