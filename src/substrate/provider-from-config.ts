/**
 * `createProvider()`: a provider — or a retrying, falling-back composition of providers — from a plain
 * object, as a host reads it from JSON or the environment. Everything is validated up front; a bad field
 * is a `ValidationError` naming it (`fallback[1].protocol: …`), never a silently different provider.
 *
 * @module
 */
import * as z from "zod/mini";
import { TimeoutsSchema } from "../core/call-options.ts";
import type { Provider } from "../core/provider.ts";
import { PROVIDER_ERROR_KINDS } from "../core/provider-error.ts";
import {
  formatPath,
  ValidationError,
  type ValidationIssue,
  issuesOf as validationIssuesOf,
} from "../core/validation-error.ts";
import type { AffinityResolver } from "../providers/affinity.ts";
import { closestName } from "./closest-name.ts";
import { type CooldownStore, fallback } from "./fallback.ts";
import { protocolOf } from "./protocol-of.ts";
import type {
  ProviderConfig,
  ProviderFactories,
  ProviderFactory,
  SharedProviderConfig,
} from "./provider-factory.ts";
import { providerRegistry } from "./provider-registry.ts";
import { type RetryOptions, retry } from "./retry.ts";

/** Run-time pieces no JSON can carry. */
export interface CreateProviderOptions {
  /**
   * Protocols beside the built-in ones (`anthropic`, `openai-chat`, `openai-responses`, `bedrock`), or in
   * their place, by name: a `ProviderFactory` (its own fields' schema and its build), or a bare build
   * function that replaces how a registered protocol is built. `undefined` removes a protocol.
   */
  factories?: ProviderFactories | undefined;
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

/**
 * The fields every config shares, checked here once at every level whatever the protocol; a factory's
 * schema adds the protocol's own. `protocol` and the `fallback` entries are checked on their own (better
 * messages).
 */
const SHARED_FIELDS = {
  protocol: z.optional(z.unknown()),
  model: z.string().check(z.minLength(1, "required: a model id")),
  baseURL: z.optional(z.string()),
  apiKey: z.optional(z.string()),
  headers: z.optional(z.record(z.string(), z.string())),
  timeouts: z.optional(TimeoutsSchema),
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
} satisfies Record<keyof SharedProviderConfig, z.core.$ZodType>;

/**
 * A provider from a plain configuration object.
 *
 * - `protocol` selects the factory among the registered ones: `anthropic`, `openai-chat`,
 *   `openai-responses` and `bedrock` are built in (bedrock reads `region`, `apiKey` for bearer auth,
 *   `baseURL` as its endpoint, and `settings: { api, auth, credentials }`); `options.factories` adds a
 *   protocol or replaces one. An unknown or mistyped protocol is warned about (with the closest registered
 *   name) and refused with a `ValidationError` naming `protocol` — never replaced by the default.
 * - The shared fields (`model`, `apiKey`, `baseURL`, `headers`, `timeouts`, `retry`, `triggers`,
 *   `fallback`, `defaultTriggers`, `cooldown`) are checked here; the protocol's own by its factory's schema.
 *   Unknown keys are refused (`basURL` → did you mean `baseURL`?), and so are keys of another protocol
 *   (naming the protocols that take them).
 * - `retry` wraps the provider in `retry()`; `fallback` lists the entries tried after it, each a config of
 *   its own (with its own `triggers`, `retry`, even `fallback`), giving `fallback([this, ...entries])`.
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
  const registry = providerRegistry(options.factories);
  const schemas = levelSchemas(registry);
  // Validate the whole tree before building anything: every bad field, wherever it sits, fails up front.
  const tree = check(config, "", registry, schemas, options);
  return build(tree, "", options);
}

interface CheckedConfig {
  config: ProviderConfig;
  factory: ProviderFactory;
  fallback: CheckedConfig[];
}

/** The schema of one level of a config, per protocol: the shared fields and the protocol's own. */
function levelSchemas(registry: ReadonlyMap<string, ProviderFactory>): Map<string, z.ZodMiniObject> {
  const issues: ValidationIssue[] = [];
  const schemas = new Map<string, z.ZodMiniObject>();
  for (const [name, factory] of registry) {
    for (const field of Object.keys(factory.schema)) {
      if (Object.hasOwn(SHARED_FIELDS, field)) {
        issues.push({
          path: `factories.${name}.schema.${field}`,
          message: "a field every protocol shares, checked by createProvider: leave it out of the schema",
        });
      }
    }
    schemas.set(name, z.strictObject({ ...SHARED_FIELDS, ...factory.schema }));
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return schemas;
}

function check(
  value: unknown,
  path: string,
  registry: ReadonlyMap<string, ProviderFactory>,
  schemas: ReadonlyMap<string, z.ZodMiniObject>,
  options: CreateProviderOptions,
): CheckedConfig {
  const at = (field: string) => (path ? `${path}.${field}` : field);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ValidationError([{ path: path || "config", message: "must be an object" }]);
  }
  const raw = value as Record<string, unknown>;
  // protocolOf warns before every `undefined` it returns: the warning is the issue's message.
  let warning = "";
  const protocol = protocolOf(raw.protocol, {
    factories: options.factories,
    warn: (message) => {
      warning = message;
      options.warn?.(message);
    },
  });
  if (protocol === undefined) {
    throw new ValidationError([{ path: at("protocol"), message: warning.replace(/^modelwire: /, "") }]);
  }
  const schema = schemas.get(protocol)!;
  const result = z.safeParse(schema, raw);
  if (!result.success) {
    throw new ValidationError(
      result.error.issues.flatMap((issue) => issuesOf(issue, path, protocol, schema, registry)),
    );
  }
  const parsed = result.data as ProviderConfig;
  if (!parsed.fallback) {
    const issues: ValidationIssue[] = [];
    for (const field of ["defaultTriggers", "cooldown"] as const) {
      if (parsed[field] !== undefined)
        issues.push({ path: at(field), message: "only meaningful with `fallback`" });
    }
    if (issues.length > 0) throw new ValidationError(issues);
  }
  const fallbackEntries = (parsed.fallback ?? []).map((entry, index) =>
    check(entry, `${at("fallback")}[${index}]`, registry, schemas, options),
  );
  const { fallback: _entries, ...rest } = parsed;
  return { config: { ...rest, protocol }, factory: registry.get(protocol)!, fallback: fallbackEntries };
}

function build(node: CheckedConfig, path: string, options: CreateProviderOptions): Provider {
  const { config } = node;
  let provider: Provider;
  try {
    provider = node.factory.build(config as Parameters<ProviderFactory["build"]>[0], {
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
        provider: build(entry, `${at("fallback")}[${index}]`, options),
        triggers: entry.config.triggers,
      })),
    ],
    {
      defaultTriggers: config.defaultTriggers,
      cooldown: config.cooldown && { ...config.cooldown, store: options.cooldownStore, now: options.now },
    },
  );
}

/**
 * A zod issue of one level → our issues. An unknown key at the level itself is named by its own path: as
 * a setting of the other protocols that take it, or with the closest field this protocol takes.
 */
function issuesOf(
  issue: z.core.$ZodIssue,
  path: string,
  protocol: string,
  schema: z.ZodMiniObject,
  registry: ReadonlyMap<string, ProviderFactory>,
): ValidationIssue[] {
  if (issue.code !== "unrecognized_keys") return validationIssuesOf([issue], path);
  const base = [...(path ? [path] : []), ...issue.path];
  const atLevel = issue.path.length === 0;
  return issue.keys.map((key) => {
    const owners = atLevel
      ? [...registry].filter(([, factory]) => Object.hasOwn(factory.schema, key)).map(([name]) => name)
      : [];
    if (owners.length > 0) {
      return {
        path: formatPath([...base, key]),
        message: `not a setting of protocol "${protocol}" (only ${owners.join(", ")})`,
      };
    }
    const suggestion = atLevel ? closestName(key, Object.keys(schema.def.shape)) : undefined;
    return {
      path: formatPath([...base, key]),
      message: `unknown setting${suggestion ? `; did you mean "${suggestion}"?` : ""}`,
    };
  });
}
