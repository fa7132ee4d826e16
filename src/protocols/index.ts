/**
 * `modelwire/protocols`: what a protocol author works with (see CONTRIBUTING.md, "Adding a provider") —
 * the {@link Protocol} contract, the HTTP shell every provider is (`httpProvider`), the rules every
 * protocol shares (provenance, stored-history readers, tool choice, context overflow, error kinds; for
 * stream assemblers the batch loop, the tool-call tracker, the piece buffer and the unknown-delta rule),
 * and the built-in protocols (Google Gemini among them) with their wire types, converters, builders,
 * parsers, stream assemblers and mappers.
 *
 * An application needs none of it: providers, the neutral types and the substrate are in `modelwire`.
 * This file is an entry point only: it re-exports the providers' shell beside the protocols, and no module
 * under `src/` imports from it.
 *
 * @example
 * ```ts
 * import { httpProvider, type Protocol, type ProtocolWire } from "modelwire/protocols";
 * const myProtocol: Protocol<MyWire> = { name: "my-protocol", buildRequest, isResponse, parseResponse, … };
 * const provider = httpProvider({ protocol: myProtocol, provider: "mine", model, secrets: [apiKey], … });
 * ```
 *
 * @module
 */

// The neutral pieces a protocol reads and writes, beyond the types `modelwire` exports.
export {
  CacheOptionSchema,
  CallOptionsSchema,
  ResponseFormatSchema,
  type StandardSchemaLike,
  ThinkingSchema,
  ToolChoiceSchema,
} from "../core/call-options.ts";
export { parseToolArguments, StreamAccumulator } from "../core/collect-stream.ts";
export {
  checkContentPart,
  contentParts,
  dataUrl,
  hasMedia,
  IMAGE_MEDIA_TYPES,
  isBase64,
  MAX_INLINE_DATA_CHARS,
  parseDataUrl,
} from "../core/content.ts";
export { ContentPartSchema, ContentSchema } from "../core/content-schema.ts";
export {
  MessageSchema,
  NativeSchema,
  normalizeMessage,
  RoleSchema,
  ToolCallSchema,
  ToolResultSchema,
} from "../core/message.ts";
export {
  errorKindFromStatus,
  isRetryableKind,
  MAX_RETRY_AFTER_MS,
  MAX_UPSTREAM_BODY,
  PROVIDER_ERROR_KINDS,
  redactSecrets,
} from "../core/provider-error.ts";
export { ResponseSchema, ServedBySchema, StopReasonSchema } from "../core/response.ts";
export {
  coalesceDeltas,
  type DoneEvent,
  isContentEvent,
  type ReasoningDeltaEvent,
  type TextDeltaEvent,
  type ToolCallDeltaEvent,
  type ToolCallEndEvent,
  type ToolCallStartEvent,
  type UsageEvent,
} from "../core/stream-event.ts";
export { holdUntilContent, requireDone, type StreamSource } from "../core/stream-guards.ts";
export {
  type PreparedResponseFormat,
  prepareResponseFormat,
  readStructuredOutput,
} from "../core/structured-output.ts";
export { type JsonSchema, normalizeToolSpecs } from "../core/tool-spec.ts";
export { UsageSchema } from "../core/usage.ts";
// Provider internals of the built-in providers.
export { BEDROCK_BEARER_ENV, encodeModelId } from "../providers/bedrock.ts";
export {
  type AccessTokenSource,
  CLOUD_PLATFORM_SCOPE,
  GOOGLE_TOKEN_URI,
  googleServiceAccountTokens,
  readServiceAccount,
  type ServiceAccountTokenOptions,
} from "../providers/google-service-account.ts";
export {
  type ServiceAccountClaims,
  serviceAccountAssertion,
} from "../providers/google-service-account-assertion.ts";
export {
  endpointURL,
  type PostRequest,
  retryAfterMs,
  secretsOf,
  type TransportContext,
  toProviderError,
} from "../providers/http.ts";
export {
  type HttpCall,
  type HttpEndpoint,
  type HttpProvider,
  type HttpProviderSettings,
  type HttpProviderSpec,
  httpProvider,
} from "../providers/http-provider.ts";
// The built-in protocols: each folder's protocol object, wire types and functions.
export * from "./anthropic-messages/index.ts";
export * from "./bedrock-converse/index.ts";
export * from "./bedrock-invoke/index.ts";
// Rules every protocol shares: called, never written again.
export { isContextOverflow } from "./context-overflow.ts";
export * from "./deliver-batches.ts";
export * from "./google-gemini/index.ts";
export * from "./merge-unknown-delta.ts";
export * from "./native-replay.ts";
export * from "./neutral-blocks.ts";
export * from "./openai-chat/index.ts";
export * from "./openai-model-rules.ts";
export * from "./openai-responses/index.ts";
export { openAISampling } from "./openai-sampling.ts";
export * from "./pending-results.ts";
export * from "./piece-buffer.ts";
// The contract and the shell.
export type {
  ErrorBodyInfo,
  ErrorBodyMapper,
  Protocol,
  ProtocolContext,
  ProtocolRequest,
  ProtocolWire,
  ReplayTarget,
} from "./protocol.ts";
export * from "./repair-turns.ts";
export { replaysNative } from "./replays-native.ts";
export { resolveToolChoice } from "./resolve-tool-choice.ts";
export * from "./stored-history.ts";
export * from "./text-tool-calls/index.ts";
export * from "./tool-call-tracker.ts";
export * from "./vertex-anthropic/index.ts";
