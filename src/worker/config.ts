/**
 * The Worker's configuration: routes (model aliases) from the `MODELWIRE_CONFIG` variable (JSON), each a
 * provider config, a fallback chain, a pool of equivalent members, or the key-less `demo` route.
 * Credentials never sit in the config: a member names the Worker secret that holds its key
 * (`apiKeySecret`; Bedrock's AWS credentials `credentialsSecrets`, a Vertex AI service-account key
 * `credentialsSecret`), read from `env` when the route is built. A member's fields are `createProvider`'s: the
 * shared ones, and those of its protocol's factory schema — a protocol the Worker registers itself
 * (`createWorker({ providers: { factories } })`) included, its fields passed through to its schema.
 *
 * @module
 */
import * as z from "zod/mini";
import type { Provider } from "../core/provider.ts";
import { issuesOf, ValidationError, type ValidationIssue, validate } from "../core/validation-error.ts";
import type { TokenPrices } from "../substrate/cost.ts";
import { type CreateProviderOptions, createProvider } from "../substrate/provider-from-config.ts";
import { demoProvider } from "./demo.ts";

/** A route: what a model alias calls. `members` has one provider unless the route is a pool. */
export interface Route {
  /** The route's name in the config (its `aliases` map to the same route). */
  alias: string;
  members: Provider[];
  /** Relative weights of the members (pool routes), for the first pin of a session. */
  weights: number[];
  /** Whether its streaming requests run as resumable streams without asking (`"resumable": true`). */
  resumable?: boolean;
  /** MCP servers whose tools a task on this route gets beside its workflow's (the route's `mcp`). */
  mcp?: RouteMcpServer[];
}

/** An MCP server of a route, ready to connect to: its URL, its headers (the bearer token read from its secret). */
export interface RouteMcpServer {
  url: string;
  headers: Record<string, string>;
  /** The `fetch` the Worker was given for upstreams (`createWorker({ providers: { fetch } })`), if any. */
  fetch?: typeof fetch | undefined;
}

/**
 * A route's `mcp`: the Streamable HTTP servers its tasks may use, each by URL, with the Worker secret that
 * holds its bearer token (`tokenSecret`), never the token.
 */
const McpServersSchema = z
  .array(
    z.strictObject({
      url: z.string().check(z.regex(/^https?:\/\/[^\s]+$/, "an http(s) URL")),
      tokenSecret: z.optional(z.string().check(z.minLength(1))),
    }),
  )
  .check(z.maxLength(16));

/** The key-less demo provider, as a route or as a pool member (a pool to try session affinity on). */
const DemoSchema = z.strictObject({
  demo: z.literal(true),
  delayMs: z.optional(z.number().check(z.int(), z.nonnegative(), z.maximum(60_000))),
  weight: z.optional(z.number().check(z.positive())),
});

const MemberSchema = z.looseObject({
  apiKeySecret: z.optional(z.string().check(z.minLength(1))),
  /** Bedrock SigV4: the secrets holding the AWS credentials. */
  credentialsSecrets: z.optional(
    z.strictObject({
      accessKeyId: z.string().check(z.minLength(1)),
      secretAccessKey: z.string().check(z.minLength(1)),
      sessionToken: z.optional(z.string().check(z.minLength(1))),
    }),
  ),
  /** Vertex AI: the secret holding a service-account key file's JSON text. */
  credentialsSecret: z.optional(z.string().check(z.minLength(1))),
  weight: z.optional(z.number().check(z.positive())),
});

const ROUTE_NAME = /^[A-Za-z0-9._:/-]{1,128}$/;

const price = z.number().check(z.nonnegative(), z.maximum(1_000_000));
const PricesSchema = z.strictObject({
  input: price,
  output: price,
  cacheRead: z.optional(price),
  cacheWrite5m: z.optional(price),
  cacheWrite1h: z.optional(price),
});

/** `MODELWIRE_CONFIG`, as JSON: routes are checked one by one (see {@link buildRoutes}), the rest here. */
export const WorkerConfigSchema = z.strictObject({
  routes: z.record(z.string(), z.unknown()),
  /**
   * Whether gateway clients see the upstream's raw error body (`upstreamBody`) in error responses. Off by
   * default: an upstream's body may quote the request, or hold details meant for the operator.
   */
  exposeUpstreamErrors: z.optional(z.boolean()),
  /**
   * Prices of models the built-in profiles do not know (US dollars per million tokens), by the model id
   * the upstream answers with (or the member's `model`): what the per-key spend and budgets count.
   */
  prices: z.optional(z.record(z.string().check(z.minLength(1)), PricesSchema)),
});
export type WorkerConfig = z.output<typeof WorkerConfigSchema>;

/** What {@link buildRoutes} made of a config: the routes that work, and every problem of those that do not. */
export interface RouteTable {
  /** The routes served, by name and by each of their `aliases`. */
  routes: Map<string, Route>;
  /** Problems by route name: those routes are not served. */
  broken: Map<string, ValidationIssue[]>;
  /**
   * The route name of each alias a route that is not served claimed, so a call by the alias is the 500
   * naming the route's problems, as a call by its name is — not a "no such model".
   */
  brokenAliases: Map<string, string>;
  exposeUpstreamErrors: boolean;
  /** The config's `prices`, by model id. */
  prices: ReadonlyMap<string, TokenPrices>;
}

/**
 * Parses `MODELWIRE_CONFIG` (text or an already-parsed object) and builds every route, reading member keys
 * from `env` by secret name. A config that is not JSON, or not `{ routes: {...} }`, throws a
 * `ValidationError` naming the field. Otherwise each route is built on its own: a route with a problem (a
 * bad field, a missing secret — named, its value never is) is left out and its problems listed in
 * `broken`, and every other route is served.
 */
export function buildRoutes(
  raw: unknown,
  env: Record<string, unknown>,
  options: CreateProviderOptions = {},
): RouteTable {
  let value: unknown = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new ValidationError([
        { path: "MODELWIRE_CONFIG", message: `not JSON: ${(error as Error).message}` },
      ]);
    }
  }
  if (value === undefined) value = { routes: {} };
  const parsed = z.safeParse(WorkerConfigSchema, value);
  if (!parsed.success) {
    throw new ValidationError(issuesOf(parsed.error.issues));
  }
  const routes = new Map<string, Route>();
  const broken = new Map<string, ValidationIssue[]>();
  const brokenAliases = new Map<string, string>();
  const names = new Set(Object.keys(parsed.data.routes));
  /** Where each alias was claimed, so a second claim is named. */
  const claimed = new Map<string, string>();
  for (const [alias, config] of Object.entries(parsed.data.routes)) {
    const at = `routes.${alias}`;
    /** The aliases this route claimed (each once, in order). */
    const aliases: string[] = [];
    try {
      if (!ROUTE_NAME.test(alias)) {
        throw new ValidationError([
          { path: at, message: "a route name is 1 to 128 of the characters A-Z a-z 0-9 . _ : / -" },
        ]);
      }
      const { aliases: listed, rest } = splitAliases(config, at);
      // The index named is the one in the config: a name listed twice is claimed once, not renumbered.
      for (const [index, name] of listed.entries()) {
        if (aliases.includes(name)) continue;
        const where = `${at}.aliases[${index}]`;
        const clash =
          name === alias ? "this route's own name" : names.has(name) ? `routes.${name}` : claimed.get(name);
        if (clash !== undefined) {
          throw new ValidationError([{ path: where, message: `"${name}" is already ${clash}` }]);
        }
        claimed.set(name, where);
        aliases.push(name);
      }
      const { resumable, rest: withoutResumable } = splitResumable(rest, at);
      const { mcp, rest: member } = splitMcp(withoutResumable, at, env, options);
      const route = buildRoute(alias, member, at, env, options);
      if (resumable) route.resumable = true;
      if (mcp.length > 0) route.mcp = mcp;
      routes.set(alias, route);
      for (const name of aliases) routes.set(name, route);
    } catch (error) {
      if (!ValidationError.is(error)) throw error;
      broken.set(alias, [...error.issues]);
      for (const name of aliases) brokenAliases.set(name, alias);
    }
  }
  return {
    routes,
    broken,
    brokenAliases,
    exposeUpstreamErrors: parsed.data.exposeUpstreamErrors ?? false,
    prices: new Map(Object.entries(parsed.data.prices ?? {})),
  };
}

/**
 * A route's `aliases` (other model names it answers to — real model ids such as
 * `claude-sonnet-4-5-20250929`, which clients like Claude Code send), and the rest of its config.
 */
function splitAliases(config: unknown, at: string): { aliases: string[]; rest: unknown } {
  if (typeof config !== "object" || config === null || Array.isArray(config) || !("aliases" in config)) {
    return { aliases: [], rest: config };
  }
  const { aliases, ...rest } = config as Record<string, unknown>;
  const parsed = validate(z.array(z.string().check(z.regex(ROUTE_NAME))), aliases, `${at}.aliases`);
  return { aliases: parsed, rest };
}

/** A route's `resumable` setting (its streaming requests run as resumable streams), and the rest of it. */
function splitResumable(config: unknown, at: string): { resumable: boolean; rest: unknown } {
  if (typeof config !== "object" || config === null || Array.isArray(config) || !("resumable" in config)) {
    return { resumable: false, rest: config };
  }
  const { resumable, ...rest } = config as Record<string, unknown>;
  return { resumable: validate(z.boolean(), resumable, `${at}.resumable`), rest };
}

/** A route's `mcp` servers (their tokens read from `env`), and the rest of its config. */
function splitMcp(
  config: unknown,
  at: string,
  env: Record<string, unknown>,
  options: CreateProviderOptions,
): { mcp: RouteMcpServer[]; rest: unknown } {
  if (typeof config !== "object" || config === null || Array.isArray(config) || !("mcp" in config)) {
    return { mcp: [], rest: config };
  }
  const { mcp, ...rest } = config as Record<string, unknown>;
  const servers = validate(McpServersSchema, mcp, `${at}.mcp`).map((server, index): RouteMcpServer => {
    const headers: Record<string, string> = {};
    if (server.tokenSecret !== undefined) {
      const token = env[server.tokenSecret];
      if (typeof token !== "string" || token === "") {
        throw new ValidationError([
          {
            path: `${at}.mcp[${index}].tokenSecret`,
            message: `the Worker secret ${server.tokenSecret} is not set`,
          },
        ]);
      }
      headers.authorization = `Bearer ${token}`;
    }
    return { url: server.url, headers, fetch: options.fetch };
  });
  return { mcp: servers, rest };
}

function buildRoute(
  alias: string,
  config: unknown,
  at: string,
  env: Record<string, unknown>,
  options: CreateProviderOptions,
): Route {
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new ValidationError([
      { path: at, message: "must be an object: a provider config, a pool or a demo route" },
    ]);
  }
  const record = config as Record<string, unknown>;
  if ("demo" in record) {
    return { alias, members: [demoMember(record, at)], weights: [1] };
  }
  if ("pool" in record) {
    const pool = validate(
      z.strictObject({ pool: z.array(z.unknown()).check(z.minLength(1)) }),
      record,
      at,
    ).pool;
    const issues: ValidationIssue[] = [];
    const members: Provider[] = [];
    const weights: number[] = [];
    pool.forEach((member, index) => {
      const path = `${at}.pool[${index}]`;
      try {
        const item = validate(z.union([DemoSchema, MemberSchema]), member, path) as Record<string, unknown>;
        members.push("demo" in item ? demoMember(item, path) : buildMember(item, path, env, options));
        weights.push(typeof item.weight === "number" ? item.weight : 1);
      } catch (error) {
        if (!ValidationError.is(error)) throw error;
        issues.push(...error.issues);
      }
    });
    if (issues.length > 0) throw new ValidationError(issues);
    return { alias, members, weights };
  }
  const member = validate(MemberSchema, record, at) as Record<string, unknown>;
  return { alias, members: [buildMember(member, at, env, options)], weights: [1] };
}

function demoMember(config: Record<string, unknown>, path: string): Provider {
  const demo = validate(DemoSchema, config, path);
  return demoProvider(demo.delayMs === undefined ? {} : { delayMs: demo.delayMs });
}

function buildMember(
  member: Record<string, unknown>,
  path: string,
  env: Record<string, unknown>,
  options: CreateProviderOptions,
): Provider {
  const config = withSecrets(member, path, env);
  try {
    return createProvider(config, options);
  } catch (error) {
    if (ValidationError.is(error))
      throw new ValidationError(error.issues.map((issue) => inConfig(issue, path)));
    throw error;
  }
}

/**
 * A `createProvider` issue, as the operator of the Worker config must fix it: under the route's path, and a
 * missing `apiKey` (which never goes in the config) as the `apiKeySecret` that names the secret holding it.
 */
function inConfig(issue: ValidationIssue, path: string): ValidationIssue {
  const field =
    /(?:^|\.)apiKey$/.test(issue.path) && issue.message.startsWith("required")
      ? issue.path.replace(/apiKey$/, "apiKeySecret")
      : issue.path;
  let message =
    field === issue.path
      ? issue.message
      : `${issue.message}; in MODELWIRE_CONFIG, name the Worker secret that holds the key (apiKeySecret)`;
  // Vertex AI with no credentials at all: the key file goes in a secret too.
  if (/(?:^|\.)credentials$/.test(issue.path) && issue.message.startsWith("required: one of credentials")) {
    message = `${issue.message}; in MODELWIRE_CONFIG, name the Worker secret holding the service-account key's JSON (credentialsSecret)`;
  }
  return { path: field ? `${path}.${field}` : path, message };
}

/** Replaces `apiKeySecret` (here and in nested fallback entries) with the secret's value; drops `weight`. */
function withSecrets(
  member: Record<string, unknown>,
  path: string,
  env: Record<string, unknown>,
): Record<string, unknown> {
  const { apiKeySecret, credentialsSecrets, credentialsSecret, weight: _weight, ...rest } = member;
  if (rest.apiKey !== undefined) {
    // Keys never sit in the config (it is a plain variable, visible to anyone who can read the Worker).
    throw new ValidationError([
      {
        path: `${path}.apiKey`,
        message: "keys do not go in MODELWIRE_CONFIG; name a Worker secret with apiKeySecret",
      },
    ]);
  }
  const config: Record<string, unknown> = { ...rest };
  const secretOf = (name: string, field: string): string => {
    const secret = env[name];
    if (typeof secret !== "string" || secret === "") {
      throw new ValidationError([
        { path: `${path}.${field}`, message: `the Worker secret ${name} is not set` },
      ]);
    }
    return secret;
  };
  if (typeof credentialsSecrets === "object" && credentialsSecrets !== null) {
    const names = credentialsSecrets as Record<string, string | undefined>;
    const credentials: Record<string, string> = {
      accessKeyId: secretOf(String(names.accessKeyId), "credentialsSecrets.accessKeyId"),
      secretAccessKey: secretOf(String(names.secretAccessKey), "credentialsSecrets.secretAccessKey"),
    };
    if (names.sessionToken)
      credentials.sessionToken = secretOf(names.sessionToken, "credentialsSecrets.sessionToken");
    const settings =
      typeof rest.settings === "object" && rest.settings !== null
        ? (rest.settings as Record<string, unknown>)
        : {};
    config.settings = { ...settings, credentials };
  }
  if (typeof credentialsSecret === "string") {
    // Vertex AI: the key file's JSON text, handed to the provider as settings.credentials.
    const settings =
      typeof config.settings === "object" && config.settings !== null
        ? (config.settings as Record<string, unknown>)
        : {};
    config.settings = { ...settings, credentials: secretOf(credentialsSecret, "credentialsSecret") };
  }
  if (typeof apiKeySecret === "string") config.apiKey = secretOf(apiKeySecret, "apiKeySecret");
  // Bedrock bearer auth reads AWS_BEARER_TOKEN_BEDROCK from the env it is handed: hand it the secret.
  const bearer = env.AWS_BEARER_TOKEN_BEDROCK;
  if (
    rest.protocol === "bedrock" &&
    apiKeySecret === undefined &&
    typeof bearer === "string" &&
    bearer !== ""
  ) {
    const settings =
      typeof config.settings === "object" && config.settings !== null
        ? (config.settings as Record<string, unknown>)
        : {};
    config.settings = { ...settings, env: { AWS_BEARER_TOKEN_BEDROCK: bearer } };
  }
  if (Array.isArray(rest.fallback)) {
    config.fallback = rest.fallback.map((entry, index) =>
      typeof entry === "object" && entry !== null
        ? withSecrets(entry as Record<string, unknown>, `${path}.fallback[${index}]`, env)
        : entry,
    );
  }
  return config;
}
