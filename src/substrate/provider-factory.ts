/**
 * What `createProvider()`'s registry holds: a protocol name mapped to a {@link ProviderFactory} — the
 * schema of the config fields only that protocol reads, and how its provider is built from a checked
 * config. The fields every config shares ({@link SharedProviderConfig}) are validated once, by
 * `createProvider`, never by a factory. The built-in protocols register exactly this way
 * (`src/substrate/factories/`), and so does a protocol from outside the package.
 *
 * @module
 */
import type * as z from "zod/mini";
import type { Timeouts } from "../core/call-options.ts";
import type { Provider } from "../core/provider.ts";
import type { AffinityResolver } from "../providers/affinity.ts";
import type { FallbackTrigger } from "./fallback.ts";

/** The protocols built in: a config names them without registering anything. */
export type BuiltInProtocol =
  | "anthropic"
  | "openai-chat"
  | "openai-responses"
  | "bedrock"
  | "google-gemini"
  | "vertex";

/** A protocol a config names: a built-in one, or one registered through `factories`. */
export type ProtocolName = BuiltInProtocol | (string & {});

/** Retry settings of a config (see `retry()`). */
export interface RetryConfig {
  attempts?: number | undefined;
  backoff?: number | undefined;
  maxDelay?: number | undefined;
}

/** Cooldown settings of a chain (see `fallback()`); the store and clock come from the options. */
export interface CooldownConfig {
  ms: number;
  after?: number | undefined;
}

/** The fields of every config, whatever its protocol: validated once by `createProvider()`. */
export interface SharedProviderConfig {
  /** A registered protocol name (or alias); absent or empty means `"openai-chat"`. */
  protocol?: ProtocolName | undefined;
  model: string;
  baseURL?: string | undefined;
  apiKey?: string | undefined;
  headers?: Record<string, string> | undefined;
  /** Default deadlines of every call (see `CallOptions.timeouts`). */
  timeouts?: Timeouts | undefined;
  /** Wrap this provider in `retry()`. */
  retry?: RetryConfig | undefined;
  /** As a fallback entry (or the head of a chain): the errors that fall through it. Unset inherits. */
  triggers?: FallbackTrigger[] | undefined;
  /** Entries tried after this one: the config becomes `fallback([this, ...fallback])`. */
  fallback?: ProviderConfig[] | undefined;
  /** The chain's default triggers (only with `fallback`). */
  defaultTriggers?: FallbackTrigger[] | undefined;
  /** The chain's cooldown (only with `fallback`). */
  cooldown?: CooldownConfig | undefined;
}

/**
 * A provider as plain data: the shared fields, and the fields of its protocol's schema (for the built-in
 * protocols, see the schemas in `src/substrate/factories/`). A field no schema of the protocol names is
 * refused, never ignored.
 */
export interface ProviderConfig extends SharedProviderConfig {
  readonly [field: string]: unknown;
}

/**
 * The config fields only one protocol reads, each with its zod schema (zod or `zod/mini`, version 4;
 * `z.optional(…)` for a field a config may leave out). Keys are the field names.
 */
export type ProviderFieldSchemas = Readonly<Record<string, z.core.$ZodType>>;

/**
 * What a factory's `build` gets: the shared fields (without `fallback`, which `createProvider` applies), the
 * protocol's registered name, and its own fields as its schema parsed them. Fields the config left out are
 * absent.
 */
export type ProviderConfigOf<S extends ProviderFieldSchemas> = Omit<SharedProviderConfig, "fallback"> & {
  protocol: ProtocolName;
} & { [K in keyof S]: z.output<S[K]> };

/** What a factory gets besides the config: the host's run-time pieces. */
export interface ProviderFactoryContext {
  fetch?: typeof fetch | undefined;
  affinity?: AffinityResolver | undefined;
  /** `CreateProviderOptions.logger`: for providers that report a decision. */
  logger?: ((message: string) => void) | undefined;
  /** Where this config sits (`""`, `"fallback[0]"`), for error paths. */
  path: string;
}

/**
 * One protocol, as `createProvider()` registers it: its own config fields and how its provider is built.
 * Register one under its name in `CreateProviderOptions.factories` (or the Worker's `providers.factories`).
 *
 * @example
 * ```ts
 * const gemini: ProviderFactory<typeof geminiFields> = {
 *   schema: geminiFields, // { location: z.optional(z.string()) }
 *   build: (config, context) => geminiProvider({ model: config.model, apiKey: config.apiKey, location: config.location, fetch: context.fetch }),
 * };
 * createProvider({ protocol: "gemini", model: "gemini-2.5-pro", apiKey, location: "europe-west4" }, { factories: { gemini } });
 * ```
 */
export interface ProviderFactory<S extends ProviderFieldSchemas = ProviderFieldSchemas> {
  /** The fields only this protocol reads (never a shared one): a field of another protocol is refused. */
  readonly schema: S;
  /** Other names a config may give this protocol, such as its wire-protocol name (`anthropic-messages`). */
  readonly aliases?: readonly string[] | undefined;
  /**
   * Builds the provider from a checked config. A `ValidationError` it throws names fields relative to the
   * config (`apiKey`); `createProvider` puts the entry's path in front (`fallback[0].apiKey`).
   */
  build(config: ProviderConfigOf<S>, context: ProviderFactoryContext): Provider;
}

/**
 * A factory's `build` registered alone: it replaces how a registered protocol is built (a wrapped `fetch`,
 * your own defaults) and keeps that protocol's schema and aliases; under a new name it is a protocol with no
 * fields of its own.
 */
export type ProviderBuild = (config: ProviderConfig, context: ProviderFactoryContext) => Provider;

/**
 * Factories by protocol name, added to the built-in ones or replacing those of the same name; `undefined`
 * removes a protocol, so configs cannot name it.
 */
export type ProviderFactories = Readonly<Record<string, ProviderFactory | ProviderBuild | undefined>>;
