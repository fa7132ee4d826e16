/**
 * `vertex()`: Google Cloud Vertex AI as a `Provider`, from any runtime with `fetch` and Web Crypto — no
 * Google auth library. Settings, URLs and auth only: a service-account key turned into OAuth access tokens
 * here (`googleServiceAccountTokens`), an access token the host supplies, or an API key (express mode).
 * Translation is the publisher's protocol object — Claude through `vertexAnthropicProtocol` (the Anthropic
 * Messages body in Vertex's envelope, `rawPredict` / `streamRawPredict`), Gemini through the
 * `google-gemini` protocol — and the call's path the shared shell's (`httpProvider`).
 *
 * @module
 */
import type { CacheOption } from "../core/call-options.ts";
import type { Provider } from "../core/provider.ts";
import { ProviderError } from "../core/provider-error.ts";
import { ValidationError, type ValidationIssue } from "../core/validation-error.ts";
import { allowedBetas, withoutCacheScope } from "../protocols/anthropic-cloud-betas.ts";
import { googleGeminiProtocol } from "../protocols/google-gemini/index.ts";
import {
  VERTEX_ANTHROPIC_BETAS,
  VERTEX_ANTHROPIC_VERSION,
  VERTEX_ORIGIN,
  vertexAnthropicProtocol,
} from "../protocols/vertex-anthropic/index.ts";
import { type AnthropicModelProfile, anthropicModelProfile } from "./anthropic-model-profiles.ts";
import {
  type AccessTokenSource,
  type GoogleServiceAccount,
  googleServiceAccountTokens,
} from "./google-service-account.ts";
import { secretsOf } from "./http.ts";
import {
  type HttpCall,
  type HttpProvider,
  type HttpProviderSettings,
  httpProvider,
} from "./http-provider.ts";
import { mergeBetas, sseNativeEvent } from "./native.ts";
import { vertexURL } from "./vertex-url.ts";

export { VERTEX_ANTHROPIC_VERSION, VERTEX_ORIGIN } from "../protocols/vertex-anthropic/index.ts";

/** Whose models a `vertex()` provider calls: Google's (Gemini) or Anthropic's (Claude). */
export type VertexPublisher = "google" | "anthropic";

/** Settings of {@link vertex}. Exactly one of `credentials`, `accessToken` and `apiKey` is required. */
export interface VertexSettings extends HttpProviderSettings {
  /**
   * The Vertex model id: `"gemini-2.5-pro"`, `"claude-sonnet-4-5@20250929"`. An Anthropic API id with a
   * date (`claude-sonnet-4-5-20250929`) is sent in Vertex's form (`…@20250929`).
   */
  model: string;
  /** The Google Cloud project id. Required, except with `apiKey` (express mode has none). */
  project?: string;
  /**
   * Where the model runs: `"global"`, `"us"` / `"eu"` (multi-region) or a region (`"us-east5"`,
   * `"europe-west4"`). Required, except with `apiKey`.
   */
  location?: string;
  /**
   * A service-account key (the JSON file's text, or the object): access tokens are made from it inside
   * the library, cached until five minutes before they expire.
   */
  credentials?: GoogleServiceAccount | string;
  /** An OAuth access token, or a function giving one per call (the host refreshes it). */
  accessToken?: string | (() => string | Promise<string>);
  /**
   * A Google Cloud API key: Vertex AI express mode, Gemini models only, no project or location
   * (`https://aiplatform.googleapis.com/v1/publishers/google/models/…`), sent as `x-goog-api-key`.
   */
  apiKey?: string;
  /** Whose model `model` is; by default `anthropic` for `claude-…` ids and `google` for `gemini-…` / `gemma-…`. */
  publisher?: VertexPublisher;
  /** `"v1"` (default) or `"v1beta1"` (newer Gemini fields). */
  apiVersion?: "v1" | "v1beta1";
  /** Replaces `https://{host}/{apiVersion}` (a proxy, Private Service Connect, a fake in tests). */
  baseURL?: string;
  /** Claude: beta features, sent as `anthropic-beta`. */
  betas?: readonly string[];
  /** Claude: prompt caching when a call does not say; default `"auto"` (see `CacheOption`). */
  cache?: CacheOption;
  /** Claude: model facts (thinking mode, limits, prices), looked up from the model id by default. */
  profile?: AnthropicModelProfile;
  /** The clock of the token cache, in ms since the epoch (tests); default `Date.now`. */
  now?: () => number;
}

/**
 * What a publisher's entry gets from {@link vertex}: everything but its protocol, to hand to `httpProvider`
 * with its own `protocol`, `request` and `endpoint`.
 */
export interface VertexPublisherContext {
  settings: VertexSettings;
  /** The model id as it goes in the URL. */
  model: string;
  /** The shell's fields every publisher shares (credentials included: `fetch` adds the bearer token). */
  shared: {
    provider: "vertex";
    model: string;
    secrets: readonly (string | undefined)[];
    fetch: typeof fetch | undefined;
    timeouts: VertexSettings["timeouts"];
    context: { provider: "vertex"; model: string; origin: typeof VERTEX_ORIGIN };
  };
  /** The URL of `method` on the model (`query` without `?`). */
  url(method: string, query?: string, model?: string): string;
  /** The request headers: content type, the settings' extra headers, a static credential. */
  headers(): Record<string, string>;
}

/** Builds the provider for one publisher's models. */
type VertexPublisherBuild = (context: VertexPublisherContext) => HttpProvider;

/**
 * The protocol of each publisher's models: Gemini through `generateContent` /
 * `streamGenerateContent?alt=sse` (the `google-gemini` protocol), Claude through `rawPredict` /
 * `streamRawPredict` (Anthropic Messages in Vertex's envelope).
 */
const PUBLISHERS: Partial<Record<VertexPublisher, VertexPublisherBuild>> = {
  anthropic: claudeOnVertex,
  google: geminiOnVertex,
};

/** Gemini on Vertex: the `google-gemini` protocol, origin `"vertex"` (its signatures replay only here). */
function geminiOnVertex(vertexContext: VertexPublisherContext): HttpProvider {
  const { model, shared } = vertexContext;
  return httpProvider({
    ...shared,
    protocol: googleGeminiProtocol,
    request: (call) => ({ ...call, model, origin: VERTEX_ORIGIN }),
    endpoint: ({ stream }) => ({
      url: stream
        ? vertexContext.url("streamGenerateContent", "alt=sse")
        : vertexContext.url("generateContent"),
      headers: vertexContext.headers(),
    }),
  });
}

const MODEL = /^[A-Za-z0-9][A-Za-z0-9._@-]*$/;
const PROJECT = /^[A-Za-z0-9][A-Za-z0-9.:-]*$/;
const LOCATION = /^[a-z][a-z0-9-]*$/;

/**
 * A Vertex AI provider.
 *
 * @example
 * ```ts
 * // Claude on Vertex with a service-account key (a Worker secret holding the JSON file):
 * const claude = vertex({
 *   project: "my-project",
 *   location: "us-east5",
 *   model: "claude-sonnet-4-5@20250929",
 *   credentials: env.GOOGLE_SERVICE_ACCOUNT_JSON,
 * });
 * const answer = await claude.complete([{ role: "user", content: "Hello" }], [], { thinking: "high" });
 * ```
 */
export function vertex(settings: VertexSettings): Provider {
  if (typeof settings?.model !== "string" || settings.model === "") {
    throw new ValidationError([{ path: "model", message: "required: a Vertex AI model id" }]);
  }
  const model = vertexModelId(settings.model);
  const issues: ValidationIssue[] = [];
  if (!MODEL.test(model)) {
    issues.push({
      path: "model",
      message: `not a Vertex AI model id (letters, digits, . _ @ -): ${JSON.stringify(settings.model).slice(0, 80)}`,
    });
  }
  const publisher = settings.publisher ?? publisherOf(model);
  if (publisher === undefined) {
    issues.push({
      path: "publisher",
      message: `required for ${JSON.stringify(model)}: "google" (Gemini) or "anthropic" (Claude)`,
    });
  } else if (publisher !== "google" && publisher !== "anthropic") {
    issues.push({
      path: "publisher",
      message: `must be "google" or "anthropic", got ${JSON.stringify(publisher)}`,
    });
  }
  const given = (["credentials", "accessToken", "apiKey"] as const).filter(
    (field) => settings[field] !== undefined,
  );
  if (given.length === 0) {
    issues.push({
      path: "credentials",
      message:
        "required: one of credentials (a service-account key), accessToken, or apiKey (express mode, Gemini only)",
    });
  } else if (given.length > 1) {
    issues.push({
      path: given[1]!,
      message: `set one of credentials, accessToken and apiKey, not ${given.join(" and ")}`,
    });
  }
  const express = settings.apiKey !== undefined;
  if (express) {
    if (typeof settings.apiKey !== "string" || settings.apiKey.trim() === "") {
      issues.push({ path: "apiKey", message: "must be a non-empty string" });
    }
    if (publisher === "anthropic") {
      issues.push({
        path: "apiKey",
        message:
          "express mode (an API key) serves Gemini models only: use credentials or accessToken for Claude",
      });
    }
    for (const field of ["project", "location"] as const) {
      if (settings[field] !== undefined) {
        issues.push({
          path: field,
          message:
            "not used with apiKey: express-mode URLs name no project or location (leave it out, or authenticate with credentials or accessToken)",
        });
      }
    }
  } else {
    checkName(settings.project, "project", PROJECT, "a Google Cloud project id", issues);
    checkName(settings.location, "location", LOCATION, 'a location ("global", "us", "us-east5", …)', issues);
  }
  const token = settings.accessToken;
  if (typeof token === "string" ? token.trim() === "" : token !== undefined && typeof token !== "function") {
    issues.push({ path: "accessToken", message: "must be a non-empty string or a function returning one" });
  }
  const apiVersion = settings.apiVersion ?? "v1";
  if (apiVersion !== "v1" && apiVersion !== "v1beta1") {
    issues.push({
      path: "apiVersion",
      message: `must be "v1" or "v1beta1", got ${JSON.stringify(apiVersion)}`,
    });
  }
  if (issues.length > 0) throw new ValidationError(issues);

  const secrets: (string | undefined)[] = secretsOf(
    typeof settings.apiKey === "string" ? settings.apiKey.trim() : undefined,
    settings.headers,
  );
  if (typeof token === "string") secrets.push(token.trim());
  const shared: VertexPublisherContext["shared"] = {
    provider: "vertex",
    model,
    secrets,
    fetch: settings.fetch,
    timeouts: settings.timeouts,
    context: { provider: "vertex", model, origin: VERTEX_ORIGIN },
  };
  if (settings.credentials !== undefined) {
    const tokens = googleServiceAccountTokens(settings.credentials, {
      fetch: settings.fetch,
      now: settings.now,
      context: { provider: "vertex", model },
      secrets,
    });
    shared.fetch = bearerFetch(settings.fetch, tokens);
  } else if (typeof token === "function") {
    shared.fetch = bearerFetch(settings.fetch, suppliedTokens(token, secrets, model));
  }

  const build = PUBLISHERS[publisher!];
  if (!build) {
    throw new ValidationError([
      {
        path: "model",
        message: `${JSON.stringify(model)} is a ${publisher} model: its protocol (google-gemini) is not in this build of vertex()`,
      },
    ]);
  }
  return build({
    settings,
    model,
    shared,
    url: (method, query, at = model) =>
      vertexURL({
        apiVersion,
        publisher: publisher!,
        model: at,
        method,
        project: express ? undefined : settings.project,
        location: express ? undefined : settings.location,
        baseURL: settings.baseURL,
        query,
      }),
    headers: () => {
      const headers: Record<string, string> = { "content-type": "application/json", ...settings.headers };
      if (express) headers["x-goog-api-key"] = settings.apiKey!.trim();
      else if (typeof token === "string") headers.authorization = `Bearer ${token.trim()}`;
      return headers;
    },
  });
}

/**
 * Claude on Vertex: the Anthropic Messages body through `rawPredict` / `streamRawPredict`
 * (`vertexAnthropicProtocol`), and a client's Messages body passed through the same way (`native`), with
 * its token count at `count-tokens:rawPredict`.
 */
function claudeOnVertex(vertexContext: VertexPublisherContext): HttpProvider {
  const { settings, model, shared } = vertexContext;
  const profile = settings.profile ?? anthropicModelProfile(model);
  const endpoint = ({ stream }: Pick<HttpCall, "stream">) => {
    const headers = vertexContext.headers();
    if (settings.betas?.length) headers["anthropic-beta"] = settings.betas.join(",");
    return { url: vertexContext.url(stream ? "streamRawPredict" : "rawPredict"), headers };
  };
  return httpProvider({
    ...shared,
    protocol: vertexAnthropicProtocol,
    request: (call) => ({ ...call, model, profile, defaultCache: settings.cache ?? "auto" }),
    endpoint,
    native: {
      origin: VERTEX_ORIGIN,
      // Vertex's envelope around the client's body: no model (the URL names it), the body's version, no
      // `cache_control.scope` (Vertex refuses it as an extra input; the breakpoint still caches).
      body: (request) => {
        const { model: _model, anthropic_version, ...rest } = request.body;
        const version = typeof anthropic_version === "string" ? anthropic_version : VERTEX_ANTHROPIC_VERSION;
        const warnings: string[] = [];
        const { value: unscoped, removed } = withoutCacheScope(rest);
        if (removed > 0)
          warnings.push(`Vertex takes no cache_control.scope; left out of ${removed} breakpoint(s)`);
        return {
          body: {
            anthropic_version: version,
            ...(unscoped as Record<string, unknown>),
            stream: request.stream,
          },
          droppedBetas: allowedBetas(mergeBetas(request.betas), VERTEX_ANTHROPIC_BETAS).dropped,
          warnings,
        };
      },
      // The client's flags Vertex takes (the others 400 the whole request: see `vertex-betas.ts`), after
      // the route's own (the operator's: sent as configured).
      headers: (request) => {
        const { accepted } = allowedBetas(mergeBetas(request.betas), VERTEX_ANTHROPIC_BETAS);
        const betas = mergeBetas(settings.betas, accepted);
        const headers: Record<string, string> = {};
        if (betas.length > 0) headers["anthropic-beta"] = betas.join(",");
        return headers;
      },
      eventOf: sseNativeEvent,
      countTokens: {
        // count-tokens takes the model in the body (the URL names the endpoint, not the model).
        request: (request) => {
          const { stream: _stream, anthropic_version, ...body } = request.body;
          const version =
            typeof anthropic_version === "string" ? anthropic_version : VERTEX_ANTHROPIC_VERSION;
          const unscoped = withoutCacheScope(body).value as Record<string, unknown>;
          return {
            url: vertexContext.url("rawPredict", undefined, "count-tokens"),
            body: { anthropic_version: version, ...unscoped, model },
          };
        },
        read: (json) => (json as { input_tokens?: number } | null)?.input_tokens,
      },
    },
  });
}

/**
 * `fetch` with `authorization: Bearer <token>` from `tokens` on every request: the wait for a token is
 * part of the call (its deadline and its signal cover it). A 401 answer forgets the token it was sent
 * with; when the source then gives a different one (a service account's new exchange, or a newer token
 * another call already got; a host function's next token), the request is sent once more with it — its
 * body is a string, sent again as it is. Otherwise (the same token, no token, a body that cannot be sent
 * twice) the 401 is the answer.
 */
function bearerFetch(inner: typeof fetch | undefined, tokens: AccessTokenSource): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const signal = init?.signal ?? undefined;
    const send = (token: string) => {
      const headers = new Headers(init?.headers);
      headers.set("authorization", `Bearer ${token}`);
      return (inner ?? globalThis.fetch)(input, { ...init, headers });
    };
    const token = await tokens.token(signal);
    const response = await send(token);
    if (response.status !== 401) return response;
    tokens.invalidate(token);
    const body = init?.body;
    if (input instanceof Request || (body !== undefined && body !== null && typeof body !== "string")) {
      return response;
    }
    let fresh: string;
    try {
      fresh = await tokens.token(signal);
    } catch (error) {
      if (signal?.aborted) throw error;
      // No new token: the call's own answer stands.
      return response;
    }
    if (fresh === token) return response;
    await response.body?.cancel().catch(() => {});
    return send(fresh);
  }) as typeof fetch;
}

/** Tokens from the host's function, each added to `secrets` (the last few kept). */
function suppliedTokens(
  supply: () => string | Promise<string>,
  secrets: (string | undefined)[],
  model: string,
): AccessTokenSource {
  const fixed = secrets.length;
  return {
    async token() {
      let token: unknown;
      try {
        token = await supply();
      } catch (cause) {
        throw new ProviderError({
          kind: "auth",
          message: `vertex: accessToken() failed: ${cause instanceof Error ? cause.message : String(cause)}`,
          provider: "vertex",
          model,
          retryable: false,
          secrets,
          cause,
        });
      }
      if (typeof token !== "string" || token.trim() === "") {
        throw new ProviderError({
          kind: "auth",
          message: "vertex: accessToken() gave no token",
          provider: "vertex",
          model,
          retryable: false,
        });
      }
      const value = token.trim();
      if (!secrets.includes(value)) {
        secrets.push(value);
        if (secrets.length - fixed > 4) secrets.splice(fixed, 1);
      }
      return value;
    },
    invalidate() {},
  };
}

/** The publisher of a model id, when its name says. */
function publisherOf(model: string): VertexPublisher | undefined {
  if (/^claude-/i.test(model)) return "anthropic";
  if (/^(?:gemini|gemma|learnlm)-/i.test(model)) return "google";
  return undefined;
}

/** An Anthropic API id with a date (`claude-sonnet-4-5-20250929`) in Vertex's form (`claude-sonnet-4-5@20250929`). */
function vertexModelId(model: string): string {
  return model.replace(/^(claude-[a-z0-9-]*[a-z0-9])-(\d{8})$/i, "$1@$2");
}

function checkName(
  value: unknown,
  field: "project" | "location",
  pattern: RegExp,
  what: string,
  issues: ValidationIssue[],
): void {
  if (value === undefined || value === "") {
    issues.push({ path: field, message: `required: ${what}` });
  } else if (typeof value !== "string" || !pattern.test(value)) {
    issues.push({ path: field, message: `not ${what}: ${JSON.stringify(value).slice(0, 80)}` });
  }
}
