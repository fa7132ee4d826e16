/**
 * `createProvider()`: a provider — or a retrying, falling-back composition of providers — from a plain
 * object, as a host reads it from JSON or the environment. Everything is validated up front; a bad field
 * is a `ValidationError` naming it (`fallback[1].protocol: …`), never a silently different provider.
 *
 * @module
 */
import * as z from "zod/mini";
import { type CacheOption, CacheOptionSchema, type Timeouts, TimeoutsSchema } from "../core/call-options.ts";
import type { Provider } from "../core/provider.ts";
import { PROVIDER_ERROR_KINDS } from "../core/provider-error.ts";
import { formatPath, ValidationError, type ValidationIssue } from "../core/validation-error.ts";
import type { AffinityResolver } from "../providers/affinity.ts";
import { anthropic } from "../providers/anthropic.ts";
import { type AnthropicModelProfile, anthropicModelProfile } from "../providers/anthropic-model-profiles.ts";
import { type BedrockCredentials, bedrock } from "../providers/bedrock.ts";
import { type OpenAIChatEndpoint, openaiChat } from "../providers/openai-chat.ts";
import { openaiResponses } from "../providers/openai-responses.ts";
import { closestName } from "./closest-name.ts";
import { type CooldownStore, type FallbackTrigger, fallback } from "./fallback.ts";
import { type ProtocolName, protocolOf } from "./protocol-of.ts";
import { type RetryOptions, retry } from "./retry.ts";

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

/**
 * A provider as plain data. `protocol` absent or empty means `"openai-chat"`. Fields that only one protocol
 * understands are refused for the others rather than ignored.
 */
export interface ProviderConfig {
  protocol?: ProtocolName | undefined;
  model: string;
  baseURL?: string | undefined;
  apiKey?: string | undefined;
  headers?: Record<string, string> | undefined;
  /** openai-chat: the server kind (`"openai"`, `"vllm"`, `"ollama"`, `"generic"`) or profile overrides. */
  endpoint?: OpenAIChatEndpoint | undefined;
  /** openai-chat: OpenAI organisation and project. */
  organization?: string | undefined;
  project?: string | undefined;
  /** anthropic: model-profile overrides on top of the built-in profile of `model`. */
  profile?: Partial<AnthropicModelProfile> | undefined;
  /** anthropic: `anthropic-version`, beta features, default prompt caching. */
  anthropicVersion?: string | undefined;
  betas?: string[] | undefined;
  cache?: CacheOption | undefined;
  /** Default deadlines of every call (see `CallOptions.timeouts`); any protocol. */
  timeouts?: Timeouts | undefined;
  /** bedrock: the AWS region (for a registered `bedrock` factory). */
  region?: string | undefined;
  /** Protocol-specific settings passed as they are to a registered factory. */
  settings?: Record<string, unknown> | undefined;
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
 * Builds the provider of one protocol from a validated config (without its `retry` / `fallback`, which
 * `createProvider` applies). Register one for a protocol this build does not construct itself.
 */
export type ProviderFactory = (config: ProviderConfig, context: ProviderFactoryContext) => Provider;

/** Run-time pieces no JSON can carry. */
export interface CreateProviderOptions {
  /** Factories by protocol; they replace the built-in ones (`anthropic`, `openai-chat`) of the same name. */
  factories?: Partial<Record<ProtocolName, ProviderFactory>> | undefined;
  fetch?: typeof fetch | undefined;
  /** Session affinity for providers that take it (openai-chat). */
  affinity?: AffinityResolver | undefined;
  /**
   * Receives the warning about a misspelt or mistyped protocol (the config is refused with a
   * `ValidationError` either way); unset, it goes nowhere.
   */
  warn?: ((message: string) => void) | undefined;
  /** Handed to the providers built that report a decision (bedrock's auth choice); unset, they say nothing. */
  logger?: ((message: string) => void) | undefined;
  /** Cooldown store and clock of every chain built (see `fallback()`). */
  cooldownStore?: CooldownStore | undefined;
  now?: (() => number) | undefined;
  /** Sleep and randomness of every `retry()` built (tests inject these). */
  sleep?: RetryOptions["sleep"];
  random?: RetryOptions["random"];
}

const TRIGGERS = [...PROVIDER_ERROR_KINDS, "retryable", "any"] as const;
const TriggerListSchema = z.array(z.enum(TRIGGERS));
const nonNegative = () => z.optional(z.number().check(z.nonnegative()));

const PricesSchema = z.strictObject({
  input: nonNegative(),
  output: nonNegative(),
  cacheRead: nonNegative(),
  cacheWrite5m: nonNegative(),
  cacheWrite1h: nonNegative(),
});

const ProfileSchema = z.strictObject({
  family: z.optional(z.string()),
  thinking: z.optional(z.enum(["adaptive-only", "adaptive-or-budget", "budget", "none"])),
  effort: z.optional(z.boolean()),
  keepsPriorThinking: z.optional(z.boolean()),
  maxOutputTokens: z.optional(z.number().check(z.int(), z.positive())),
  contextWindow: z.optional(z.number().check(z.int(), z.positive())),
  defaultMaxTokens: z.optional(z.number().check(z.int(), z.positive())),
  prices: z.optional(PricesSchema),
});

const EndpointSchema = z.union([
  z.enum(["openai", "vllm", "ollama", "generic"]),
  z.strictObject({
    kind: z.string().check(z.minLength(1)),
    baseURL: z.optional(z.string()),
    maxTokensField: z.optional(z.enum(["max_completion_tokens", "max_tokens"])),
    streamUsage: z.optional(z.boolean()),
    reasoningEffort: z.optional(z.boolean()),
    parallelToolCalls: z.optional(z.boolean()),
    textToolCalls: z.optional(z.enum(["hermes", "qwen3-coder", "mistral", "llama3-json"])),
    echoReasoning: z.optional(z.boolean()),
    openaiModelRules: z.optional(z.boolean()),
  }),
]);

/** One level of a config; `protocol` and `fallback` entries are checked separately (better messages). */
const ConfigSchema = z.strictObject({
  protocol: z.optional(z.unknown()),
  model: z.string().check(z.minLength(1, "required: a model id")),
  baseURL: z.optional(z.string()),
  apiKey: z.optional(z.string()),
  headers: z.optional(z.record(z.string(), z.string())),
  endpoint: z.optional(EndpointSchema),
  organization: z.optional(z.string()),
  project: z.optional(z.string()),
  profile: z.optional(ProfileSchema),
  anthropicVersion: z.optional(z.string()),
  betas: z.optional(z.array(z.string())),
  cache: z.optional(CacheOptionSchema),
  timeouts: z.optional(TimeoutsSchema),
  region: z.optional(z.string()),
  settings: z.optional(z.record(z.string(), z.unknown())),
  retry: z.optional(
    z.strictObject({
      attempts: z.optional(z.number().check(z.int(), z.positive())),
      backoff: nonNegative(),
      maxDelay: nonNegative(),
    }),
  ),
  triggers: z.optional(TriggerListSchema),
  fallback: z.optional(z.array(z.unknown())),
  defaultTriggers: z.optional(TriggerListSchema),
  cooldown: z.optional(
    z.strictObject({
      ms: z.number().check(z.positive()),
      after: z.optional(z.number().check(z.int(), z.positive())),
    }),
  ),
});

const CONFIG_KEYS = Object.keys(ConfigSchema.def.shape);

/** Fields only some protocols understand. */
const ONLY_FOR: Readonly<Record<string, readonly ProtocolName[]>> = {
  endpoint: ["openai-chat"],
  organization: ["openai-chat", "openai-responses"],
  project: ["openai-chat", "openai-responses"],
  profile: ["anthropic", "bedrock"],
  anthropicVersion: ["anthropic"],
  betas: ["anthropic", "bedrock"],
  cache: ["anthropic", "bedrock"],
  region: ["bedrock"],
  settings: ["bedrock"],
};

const BUILT_IN: Partial<Record<ProtocolName, ProviderFactory>> = {
  anthropic: (config, context) => {
    if (config.apiKey === undefined || config.apiKey === "") {
      throw new ValidationError([{ path: "apiKey", message: "required: an Anthropic API key" }]);
    }
    const base = anthropicModelProfile(config.model);
    let profile: AnthropicModelProfile | undefined;
    if (config.profile) {
      const prices = config.profile.prices ? { ...base.prices, ...config.profile.prices } : base.prices;
      if (prices && (prices.input === undefined || prices.output === undefined)) {
        throw new ValidationError([
          {
            path: "profile.prices",
            message: "input and output are required for a model without known prices",
          },
        ]);
      }
      profile = { ...base, ...config.profile, prices: completePrices(prices) };
    }
    return anthropic({
      apiKey: config.apiKey,
      model: config.model,
      ...defined({
        baseURL: config.baseURL,
        headers: config.headers,
        fetch: context.fetch,
        timeouts: config.timeouts,
        anthropicVersion: config.anthropicVersion,
        betas: config.betas,
        cache: config.cache,
        profile,
      }),
    });
  },
  "openai-chat": (config, context) =>
    openaiChat({
      model: config.model,
      ...defined({
        apiKey: config.apiKey,
        baseURL: config.baseURL,
        headers: config.headers,
        fetch: context.fetch,
        timeouts: config.timeouts,
        endpoint: config.endpoint,
        organization: config.organization,
        project: config.project,
        affinity: context.affinity,
      }),
    }),
  bedrock: (config, context) => {
    const settings = (config.settings ?? {}) as Record<string, unknown>;
    const api = settings.api ?? "converse";
    if (api !== "invoke" && api !== "converse") {
      throw new ValidationError([{ path: "settings.api", message: 'must be "invoke" or "converse"' }]);
    }
    const credentials = settings.credentials as Record<string, unknown> | undefined;
    if (
      credentials !== undefined &&
      (typeof credentials.accessKeyId !== "string" || typeof credentials.secretAccessKey !== "string")
    ) {
      throw new ValidationError([
        { path: "settings.credentials", message: "needs accessKeyId and secretAccessKey strings" },
      ]);
    }
    return bedrock({
      model: config.model,
      api,
      ...defined({
        region: config.region,
        apiKey: config.apiKey,
        endpoint: config.baseURL,
        headers: config.headers,
        fetch: context.fetch,
        timeouts: config.timeouts,
        logger: context.logger,
        cache: config.cache,
        betas: config.betas,
        auth: settings.auth as "sigv4" | "bearer" | undefined,
        credentials: credentials as BedrockCredentials | undefined,
        env: settings.env as Record<string, string | undefined> | undefined,
        profile: config.profile
          ? ({ ...anthropicModelProfile(config.model), ...config.profile } as AnthropicModelProfile)
          : undefined,
        additionalModelRequestFields: settings.additionalModelRequestFields as
          | Record<string, unknown>
          | undefined,
      }),
    });
  },
  "openai-responses": (config, context) => {
    const headers: Record<string, string> = { ...config.headers };
    if (config.organization) headers["openai-organization"] = config.organization;
    if (config.project) headers["openai-project"] = config.project;
    return openaiResponses({
      model: config.model,
      ...defined({
        apiKey: config.apiKey,
        baseURL: config.baseURL,
        headers: Object.keys(headers).length > 0 ? headers : undefined,
        fetch: context.fetch,
        timeouts: config.timeouts,
      }),
    });
  },
};

/**
 * A provider from a plain configuration object.
 *
 * - `protocol` selects the adapter: `anthropic`, `openai-chat`, `openai-responses` and `bedrock` are built
 *   in (bedrock reads `region`, `apiKey` for bearer auth, `baseURL` as its endpoint, and `settings: { api,
 *   auth, credentials }`); `options.factories` replaces or adds one. An unknown or mistyped protocol is warned about (with the closest name) and refused
 *   with a `ValidationError` naming `protocol` — never replaced by the default.
 * - `retry` wraps the provider in `retry()`; `fallback` lists the entries tried after it, each a config of
 *   its own (with its own `triggers`, `retry`, even `fallback`), giving `fallback([this, ...entries])`.
 * - Unknown keys are refused too (`basURL` → did you mean `baseURL`?), as are keys another protocol owns.
 * - Credentials go to the provider only; no error message quotes them.
 *
 * @example
 * ```ts
 * const chain = createProvider({
 *   protocol: "anthropic",
 *   model: "claude-sonnet-4-6",
 *   apiKey: env.ANTHROPIC_API_KEY,
 *   retry: { attempts: 3 },
 *   fallback: [
 *     { protocol: "openai-chat", model: "gpt-4.1", apiKey: env.OPENAI_API_KEY, triggers: ["rate_limit", "overloaded"] },
 *     { protocol: "openai-chat", endpoint: "vllm", baseURL: env.VLLM_URL, model: "Qwen/Qwen3-8B" },
 *   ],
 * });
 * ```
 */
export function createProvider(config: unknown, options: CreateProviderOptions = {}): Provider {
  const factories = { ...BUILT_IN, ...options.factories };
  // Validate the whole tree before building anything: every bad field, wherever it sits, fails up front.
  const tree = check(config, "", factories, options.warn);
  return build(tree, "", factories, options);
}

interface CheckedConfig {
  config: ProviderConfig;
  protocol: ProtocolName;
  fallback: CheckedConfig[];
}

function check(
  value: unknown,
  path: string,
  factories: Partial<Record<ProtocolName, ProviderFactory>>,
  warn: ((message: string) => void) | undefined,
): CheckedConfig {
  const at = (field: string) => (path ? `${path}.${field}` : field);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ValidationError([{ path: path || "config", message: "must be an object" }]);
  }
  const raw = value as Record<string, unknown>;
  let warning: string | undefined;
  const protocol = protocolOf(raw.protocol, {
    warn: (message) => {
      warning = message;
      warn?.(message);
    },
  });
  if (!protocol) {
    throw new ValidationError([
      { path: at("protocol"), message: (warning ?? "unknown protocol").replace(/^modelwire: /, "") },
    ]);
  }
  if (!factories[protocol]) {
    throw new ValidationError([
      {
        path: at("protocol"),
        message: `"${protocol}" is not built into this version; pass its factory: createProvider(config, { factories: { "${protocol}": … } })`,
      },
    ]);
  }
  const result = z.safeParse(ConfigSchema, raw);
  if (!result.success)
    throw new ValidationError(result.error.issues.flatMap((issue) => issuesOf(issue, path)));
  const parsed = result.data;
  const issues: ValidationIssue[] = [];
  for (const [field, protocols] of Object.entries(ONLY_FOR)) {
    if ((parsed as Record<string, unknown>)[field] !== undefined && !protocols.includes(protocol)) {
      issues.push({
        path: at(field),
        message: `not a setting of protocol "${protocol}" (only ${protocols.join(", ")})`,
      });
    }
  }
  if (!parsed.fallback) {
    for (const field of ["defaultTriggers", "cooldown"] as const) {
      if (parsed[field] !== undefined)
        issues.push({ path: at(field), message: "only meaningful with `fallback`" });
    }
  }
  if (issues.length > 0) throw new ValidationError(issues);
  const fallbackEntries = (parsed.fallback ?? []).map((entry, index) =>
    check(entry, `${at("fallback")}[${index}]`, factories, warn),
  );
  const { fallback: _entries, protocol: _protocol, ...rest } = parsed;
  return {
    config: { ...(rest as Omit<ProviderConfig, "fallback" | "protocol">), protocol },
    protocol,
    fallback: fallbackEntries,
  };
}

function build(
  node: CheckedConfig,
  path: string,
  factories: Partial<Record<ProtocolName, ProviderFactory>>,
  options: CreateProviderOptions,
): Provider {
  const { config } = node;
  const factory = factories[node.protocol]!;
  let provider: Provider;
  try {
    provider = factory(config, {
      fetch: options.fetch,
      affinity: options.affinity,
      logger: options.logger,
      path,
    });
  } catch (error) {
    if (!ValidationError.is(error) || !path) throw error;
    throw new ValidationError(error.issues.map((issue) => ({ ...issue, path: `${path}.${issue.path}` })));
  }
  if (config.retry) {
    provider = retry(provider, {
      ...config.retry,
      sleep: options.sleep,
      random: options.random,
      now: options.now,
    });
  }
  if (node.fallback.length === 0) return provider;
  const at = (field: string) => (path ? `${path}.${field}` : field);
  return fallback(
    [
      { provider, triggers: config.triggers },
      ...node.fallback.map((entry, index) => ({
        provider: build(entry, `${at("fallback")}[${index}]`, factories, options),
        triggers: entry.config.triggers,
      })),
    ],
    {
      defaultTriggers: config.defaultTriggers,
      cooldown: config.cooldown && { ...config.cooldown, store: options.cooldownStore, now: options.now },
    },
  );
}

/** A zod issue → our issues, with unknown keys named by their own path and a "did you mean". */
function issuesOf(issue: z.core.$ZodIssue, path: string): ValidationIssue[] {
  const base = [...(path ? [path] : []), ...issue.path];
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => {
      const suggestion = base.length === (path ? 1 : 0) ? closestName(key, CONFIG_KEYS) : undefined;
      return {
        path: formatPath([...base, key]),
        message: `unknown setting${suggestion ? `; did you mean "${suggestion}"?` : ""}`,
      };
    });
  }
  return [{ path: formatPath(base) || "config", message: issue.message }];
}

function completePrices(
  prices: Partial<NonNullable<AnthropicModelProfile["prices"]>> | undefined,
): AnthropicModelProfile["prices"] {
  if (!prices || prices.input === undefined || prices.output === undefined) return undefined;
  return {
    input: prices.input,
    output: prices.output,
    cacheRead: prices.cacheRead ?? prices.input * 0.1,
    cacheWrite5m: prices.cacheWrite5m ?? prices.input * 1.25,
    cacheWrite1h: prices.cacheWrite1h ?? prices.input * 2,
  };
}

/** `object` without its `undefined` fields. */
function defined<T extends Record<string, unknown>>(object: T): Partial<T> {
  const result: Partial<T> = {};
  for (const [key, value] of Object.entries(object)) {
    if (value !== undefined) (result as Record<string, unknown>)[key] = value;
  }
  return result;
}
