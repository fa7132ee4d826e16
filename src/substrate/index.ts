/**
 * The substrate (DESIGN.md layer 5): what composes providers. Every wrapper is itself a `Provider`, so they
 * nest — a `retry()` inside a `fallback()` inside another chain, observed by `withTelemetry()`.
 *
 * @module
 */
export {
  type CacheImpact,
  type CacheImpactOptions,
  cacheImpact,
  costOf,
  type PriceSource,
  type TokenPrices,
} from "./cost.ts";
export { extractBoxed } from "./extract-boxed.ts";
export {
  type CooldownStore,
  type FallbackCooldown,
  type FallbackEntry,
  type FallbackEvent,
  type FallbackFailure,
  type FallbackOptions,
  type FallbackTrigger,
  fallback,
} from "./fallback.ts";
export {
  genAiProviderName,
  type OtlpKeyValue,
  type OtlpSink,
  type OtlpSinkOptions,
  type OtlpSpan,
  type OtlpValue,
  otlpSink,
} from "./otlp-sink.ts";
export {
  checkPause,
  isStopStatus,
  type PauseLogger,
  type PauseOptions,
  type PauseState,
} from "./pause.ts";
export { type ProtocolOfOptions, protocolOf } from "./protocol-of.ts";
export { providerAffinity } from "./provider-affinity.ts";
export type {
  BuiltInProtocol,
  CooldownConfig,
  ProtocolName,
  ProviderBuild,
  ProviderConfig,
  ProviderConfigOf,
  ProviderFactories,
  ProviderFactory,
  ProviderFactoryContext,
  ProviderFieldSchemas,
  RetryConfig,
  SharedProviderConfig,
} from "./provider-factory.ts";
export { type CreateProviderOptions, createProvider } from "./provider-from-config.ts";
export { providerRegistry } from "./provider-registry.ts";
export { type RetryEvent, type RetryOptions, rateLimitResetMs, retry } from "./retry.ts";
export {
  type AffinityPool,
  type AffinityPoolOptions,
  affinityPool,
  type PinStore,
  type SessionAffinity,
  type SessionAffinityResolver,
} from "./session-affinity.ts";
export {
  type ErrorTelemetry,
  type FallbackTelemetry,
  type RequestTelemetry,
  type ResponseTelemetry,
  type TelemetryCall,
  type TelemetryEvent,
  type TelemetryOptions,
  type TelemetrySink,
  withTelemetry,
} from "./telemetry.ts";
