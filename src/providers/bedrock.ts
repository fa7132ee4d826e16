/**
 * `bedrock()`: Amazon Bedrock as a `Provider`, from any runtime with `fetch` and Web Crypto — no AWS SDK.
 * Settings, the URLs and auth only: SigV4 signing (aws4fetch's `AwsV4Signer`, never its retrying
 * `AwsClient`) or a bearer key. Translation is the protocol objects' — `bedrockInvokeProtocol` (Anthropic
 * Messages in InvokeModel's envelope) for InvokeModel with Claude, `bedrockConverseProtocol` for Converse
 * with any model — and the call's path the shared shell's (`httpProvider`).
 *
 * @module
 */
import { AwsV4Signer } from "aws4fetch";
import { bytesToBase64 } from "../core/base64.ts";
import type { CacheOption } from "../core/call-options.ts";
import type { Provider } from "../core/provider.ts";
import { ProviderError } from "../core/provider-error.ts";
import { ValidationError, type ValidationIssue } from "../core/validation-error.ts";
import { withoutCacheScope } from "../protocols/anthropic-cloud-betas.ts";
import {
  BEDROCK_ORIGIN,
  bedrockConverseProtocol,
  isAnthropicBedrockModel,
} from "../protocols/bedrock-converse/index.ts";
import {
  anthropicChunkText,
  BEDROCK_ANTHROPIC_VERSION,
  bedrockInvokeBetas,
  bedrockInvokeProtocol,
} from "../protocols/bedrock-invoke/index.ts";
import { type AnthropicModelProfile, anthropicModelProfile } from "./anthropic-model-profiles.ts";
import { endpointURL } from "./http.ts";
import { type HttpCall, type HttpProviderSettings, httpProvider } from "./http-provider.ts";
import type { NativeRequest } from "./native.ts";
import { mergeBetas, typeOfJson } from "./native.ts";

export { BEDROCK_ANTHROPIC_VERSION } from "../protocols/bedrock-invoke/index.ts";

/** AWS credentials for SigV4. Temporary credentials (STS, SSO, a role) come with a `sessionToken`. */
export interface BedrockCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | undefined;
}

/** Which Bedrock API: InvokeModel with the Anthropic Messages body, or Converse (any model). */
export type BedrockApi = "invoke" | "converse";

/** How requests are authenticated: SigV4-signed with AWS credentials, or a Bedrock API key as a bearer token. */
export type BedrockAuth = "sigv4" | "bearer";

/** Settings of {@link bedrock}. */
export interface BedrockSettings extends HttpProviderSettings {
  /** AWS region, e.g. `"us-east-1"`. Required unless `endpoint` is set and auth is bearer (SigV4 signs it). */
  region?: string;
  /**
   * Model id, inference profile id or ARN: `"us.anthropic.claude-sonnet-4-5-20250929-v1:0"`,
   * `"amazon.nova-pro-v1:0"`, `"arn:aws:bedrock:us-east-1:123456789012:inference-profile/…"`. URL-encoded
   * into the path.
   */
  model: string;
  /** `"invoke"` (Anthropic models only: the Messages body, byte-for-byte Claude output) or `"converse"`. */
  api: BedrockApi;
  /**
   * `"sigv4"` or `"bearer"`. Unset: SigV4 when `credentials` are given, else bearer when an API key is found
   * (`apiKey`, or `AWS_BEARER_TOKEN_BEDROCK` in `env`), else a `ValidationError`.
   */
  auth?: BedrockAuth;
  /** AWS credentials for SigV4, handed in by the host (never read from the environment here). */
  credentials?: BedrockCredentials;
  /** A Bedrock API key, for bearer auth. */
  apiKey?: string;
  /**
   * The host's environment, for `AWS_BEARER_TOKEN_BEDROCK` (bearer auth when `apiKey` is unset). Pass
   * the Worker's `env`, `Deno.env.toObject()` or Node's environment object: this library reads no environment itself.
   */
  env?: Record<string, string | undefined>;
  /**
   * Base URL instead of `https://bedrock-runtime.{region}.amazonaws.com` (a VPC endpoint, a proxy, a local
   * fake). The API path (`/model/{id}/converse-stream`, …) is appended to it.
   */
  endpoint?: string;
  /** Extra request headers (signed along with the rest under SigV4). */
  headers?: Record<string, string>;
  /**
   * Receives the auth choice, once per provider (never a credential). Unset (or `false`): nothing is
   * reported — the library prints nothing on its own.
   */
  logger?: ((message: string) => void) | false;
  /** Prompt caching when a call does not say; default `"auto"` (see `CacheOption`). */
  cache?: CacheOption;
  /**
   * Claude model facts (thinking mode, limits). Looked up from the model id by default; set it for an
   * application inference-profile ARN of a Claude model, whose id names no model.
   */
  profile?: AnthropicModelProfile;
  /** Claude beta features: `anthropic_beta` in the InvokeModel body or in Converse's model fields. */
  betas?: readonly string[];
  /** Converse only: model-specific request fields, passed as they are (over what the adapter sets). */
  additionalModelRequestFields?: Record<string, unknown>;
}

/** The environment variable bearer auth reads from `env`. */
export const BEDROCK_BEARER_ENV = "AWS_BEARER_TOKEN_BEDROCK";

const REGION = /^[a-z]{2,}(?:-[a-z0-9]+)+$/;

type ResolvedAuth =
  | { mode: "sigv4"; credentials: BedrockCredentials; explicit: boolean; keyAlsoFound: boolean }
  | {
      mode: "bearer";
      token: string;
      source: "apiKey" | "env";
      explicit: boolean;
      credentialsIgnored: boolean;
    };

/**
 * An Amazon Bedrock provider.
 *
 * @example
 * ```ts
 * // SigV4 with credentials the host hands in, InvokeModel with Claude (thinking replays verbatim):
 * const claude = bedrock({
 *   region: "us-east-1",
 *   model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
 *   api: "invoke",
 *   credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY },
 * });
 * // A Bedrock API key from the host's environment (AWS_BEARER_TOKEN_BEDROCK), Converse with any model:
 * const nova = bedrock({ region: "us-east-1", model: "amazon.nova-pro-v1:0", api: "converse", env });
 * ```
 */
export function bedrock(settings: BedrockSettings): Provider {
  const issues: ValidationIssue[] = [];
  if (typeof settings?.model !== "string" || settings.model === "") {
    throw new ValidationError([
      { path: "model", message: "required: a Bedrock model id, inference profile or ARN" },
    ]);
  }
  const model = settings.model;
  const api = settings.api;
  if (api !== "invoke" && api !== "converse") {
    throw new ValidationError([
      { path: "api", message: `must be "invoke" or "converse", got ${JSON.stringify(api)}` },
    ]);
  }
  const anthropicModel = settings.profile !== undefined || isAnthropicBedrockModel(model);
  if (api === "invoke" && !anthropicModel) {
    throw new ValidationError([
      {
        path: "model",
        message:
          `api "invoke" speaks the Anthropic Messages body and takes Claude models only; ${JSON.stringify(model)} ` +
          'names none: use api: "converse" for this model (or set profile for an application inference profile of a Claude model)',
      },
    ]);
  }
  const auth = resolveAuth(settings);
  const region = settings.region;
  if (region !== undefined && !REGION.test(region)) {
    issues.push({ path: "region", message: `not an AWS region: ${JSON.stringify(region)}` });
  } else if (region === undefined && (settings.endpoint === undefined || auth.mode === "sigv4")) {
    issues.push({
      path: "region",
      message:
        auth.mode === "sigv4" ? "required: SigV4 signs for a region" : "required unless endpoint is set",
    });
  }
  if (issues.length > 0) throw new ValidationError(issues);

  const base = settings.endpoint ?? `https://bedrock-runtime.${region}.amazonaws.com`;
  const modelPath = `model/${encodeModelId(model)}`;
  const urls = {
    complete: endpointURL(base, `${modelPath}/${api === "invoke" ? "invoke" : "converse"}`, "endpoint"),
    stream: endpointURL(
      base,
      `${modelPath}/${api === "invoke" ? "invoke-with-response-stream" : "converse-stream"}`,
      "endpoint",
    ),
  };
  const profile = anthropicModel ? (settings.profile ?? anthropicModelProfile(model)) : undefined;
  const secrets =
    auth.mode === "sigv4"
      ? [auth.credentials.secretAccessKey, auth.credentials.sessionToken, auth.credentials.accessKeyId]
      : [auth.token];
  const signingKeys = new Map<string, ArrayBuffer>();

  if (settings.logger) settings.logger(describeAuth(auth, api, model, region));

  const authorize = async (url: string, body: string, headers: Headers): Promise<Headers> => {
    if (auth.mode === "bearer") {
      headers.set("authorization", `Bearer ${auth.token}`);
      return headers;
    }
    const signer = new AwsV4Signer({
      method: "POST",
      url,
      headers,
      body,
      accessKeyId: auth.credentials.accessKeyId,
      secretAccessKey: auth.credentials.secretAccessKey,
      sessionToken: auth.credentials.sessionToken,
      service: "bedrock",
      region: region!,
      cache: signingKeys,
    });
    return (await signer.sign()).headers;
  };

  const endpoint = ({ stream }: HttpCall) => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (api === "invoke") headers[stream ? "x-amzn-bedrock-accept" : "accept"] = "application/json";
    for (const [name, value] of Object.entries(settings.headers ?? {})) headers[name.toLowerCase()] = value;
    return { url: stream ? urls.stream : urls.complete, headers };
  };
  /** A 200 with a JSON body where an event stream belongs: say what came, not "corrupt frame". */
  const checkStream = async (answer: globalThis.Response): Promise<globalThis.Response> => {
    const contentType = answer.headers.get("content-type") ?? "";
    if (!/json/i.test(contentType)) return answer;
    throw new ProviderError({
      kind: "invalid_response",
      message: `Bedrock answered a stream request with ${contentType}, not an event stream`,
      provider: "bedrock",
      model,
      upstreamBody: await answer.text(),
      secrets,
    });
  };
  const shared = {
    provider: "bedrock",
    model,
    secrets,
    fetch: settings.fetch,
    timeouts: settings.timeouts,
    context: { provider: "bedrock", model, origin: BEDROCK_ORIGIN },
    endpoint,
    authorize,
    checkStream,
  };
  if (api === "invoke") {
    // A client's Messages body passed through InvokeModel: Bedrock's envelope around it, the client's betas
    // that InvokeModel takes in the body (the others reported), no `model`, `stream` or `metadata`.
    const invokeBody = (request: Omit<NativeRequest, "stream">) => {
      const { model: _model, stream: _stream, metadata, anthropic_beta, ...rest } = request.body;
      const warnings = metadata === undefined ? [] : ["Bedrock InvokeModel takes no metadata; left out"];
      // Header values split at commas (`anthropic-beta: a,b`), as the first-party API reads them.
      const asked = mergeBetas(
        request.betas,
        Array.isArray(anthropic_beta) ? anthropic_beta.map(String) : [],
      );
      const { accepted, dropped } = bedrockInvokeBetas(asked);
      const betas = mergeBetas(settings.betas, accepted);
      // `cache_control.scope` comes with a first-party beta InvokeModel does not take: without it, the
      // breakpoint still caches (default scope); with it, Bedrock refuses the whole request.
      const { value: unscoped, removed } = withoutCacheScope(rest);
      if (removed > 0)
        warnings.push(
          `Bedrock InvokeModel takes no cache_control.scope; left out of ${removed} breakpoint(s)`,
        );
      const body: Record<string, unknown> = {
        anthropic_version: BEDROCK_ANTHROPIC_VERSION,
        ...(unscoped as Record<string, unknown>),
      };
      if (betas.length > 0) body.anthropic_beta = betas;
      return { body, droppedBetas: dropped, warnings };
    };
    return httpProvider({
      ...shared,
      native: {
        origin: BEDROCK_ORIGIN,
        body: invokeBody,
        eventOf: (frame) => {
          const data = anthropicChunkText(frame, { provider: "bedrock", model });
          return data === undefined ? undefined : { event: typeOfJson(data) ?? "message", data };
        },
        countTokens: {
          // CountTokens takes the InvokeModel body, base64, at the foundation model's id (no profile prefix).
          request: (request) => {
            const { body } = invokeBody(request);
            // CountTokens validates the InvokeModel body whole: max_tokens is required, and with thinking on
            // it must exceed the thinking budget (the count does not depend on it).
            body.max_tokens = countMaxTokens(body);
            const bytes = new TextEncoder().encode(JSON.stringify(body));
            return {
              url: endpointURL(
                base,
                `model/${encodeModelId(foundationModelId(model))}/count-tokens`,
                "endpoint",
              ),
              body: { input: { invokeModel: { body: bytesToBase64(bytes) } } },
            };
          },
          read: (json) => (json as { inputTokens?: number } | null)?.inputTokens,
        },
      },
      protocol: bedrockInvokeProtocol,
      request: (call) => ({
        ...call,
        model,
        profile: profile!,
        defaultCache: settings.cache ?? "auto",
        betas: settings.betas,
      }),
    });
  }
  return httpProvider({
    ...shared,
    protocol: bedrockConverseProtocol,
    request: (call) => ({
      ...call,
      model,
      anthropicProfile: profile,
      defaultCache: settings.cache ?? "auto",
      additionalModelRequestFields: settings.additionalModelRequestFields,
      betas: settings.betas,
    }),
  });
}

/**
 * The foundation model id of a cross-region inference profile id (`us.anthropic.claude-…` →
 * `anthropic.claude-…`): CountTokens takes only the former. Other ids (ARNs included) as they are.
 */
export function foundationModelId(model: string): string {
  return model.replace(/^(?:us|eu|apac|jp|au|ca|us-gov|global)\.(?=[a-z0-9-]+\.)/, "");
}

/**
 * The model id as one URL path segment: `encodeURIComponent`, plus the characters it leaves that RFC 3986
 * reserves (`!'()*`), so the path on the wire is exactly what SigV4's canonical URI encodes again
 * (`:` → `%3A` on the wire, `%253A` in the canonical request; an ARN's `/` → `%2F`).
 */
export function encodeModelId(model: string): string {
  return encodeURIComponent(model).replace(
    /[!'()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function resolveAuth(settings: BedrockSettings): ResolvedAuth {
  const { auth } = settings;
  if (auth !== undefined && auth !== "sigv4" && auth !== "bearer") {
    throw new ValidationError([
      { path: "auth", message: `must be "sigv4" or "bearer", got ${JSON.stringify(auth)}` },
    ]);
  }
  const key = bearerKey(settings);
  if (auth === "sigv4" || (auth === undefined && settings.credentials !== undefined)) {
    return {
      mode: "sigv4",
      credentials: checkCredentials(settings.credentials),
      explicit: auth === "sigv4",
      keyAlsoFound: key !== undefined,
    };
  }
  if (key !== undefined) {
    return {
      mode: "bearer",
      ...key,
      explicit: auth === "bearer",
      credentialsIgnored: settings.credentials !== undefined,
    };
  }
  if (auth === "bearer") {
    throw new ValidationError([
      {
        path: "apiKey",
        message: `bearer auth needs a Bedrock API key: set apiKey, or pass ${BEDROCK_BEARER_ENV} in env`,
      },
    ]);
  }
  throw new ValidationError([
    {
      path: "auth",
      message:
        `no Bedrock credentials: set credentials ({ accessKeyId, secretAccessKey, sessionToken? }) for SigV4, ` +
        `or apiKey (or ${BEDROCK_BEARER_ENV} in env) for bearer auth`,
    },
  ]);
}

function bearerKey(settings: BedrockSettings): { token: string; source: "apiKey" | "env" } | undefined {
  if (typeof settings.apiKey === "string" && settings.apiKey.trim() !== "") {
    return { token: settings.apiKey.trim(), source: "apiKey" };
  }
  const fromEnv = settings.env?.[BEDROCK_BEARER_ENV];
  if (typeof fromEnv === "string" && fromEnv.trim() !== "") return { token: fromEnv.trim(), source: "env" };
  return undefined;
}

function checkCredentials(credentials: BedrockCredentials | undefined): BedrockCredentials {
  const issues: ValidationIssue[] = [];
  if (typeof credentials !== "object" || credentials === null) {
    throw new ValidationError([
      { path: "credentials", message: "required for SigV4: { accessKeyId, secretAccessKey, sessionToken? }" },
    ]);
  }
  for (const field of ["accessKeyId", "secretAccessKey"] as const) {
    const value = credentials[field];
    if (typeof value !== "string" || value.trim() === "") {
      issues.push({ path: `credentials.${field}`, message: "required: a non-empty string" });
    }
  }
  const token = credentials.sessionToken;
  if (token !== undefined && (typeof token !== "string" || token.trim() === "")) {
    issues.push({ path: "credentials.sessionToken", message: "must be a non-empty string when set" });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  const result: BedrockCredentials = {
    accessKeyId: credentials.accessKeyId.trim(),
    secretAccessKey: credentials.secretAccessKey.trim(),
  };
  if (token !== undefined) result.sessionToken = token.trim();
  return result;
}

/** The one log line about auth: the mode and where its secret came from, never the secret. */
function describeAuth(
  auth: ResolvedAuth,
  api: BedrockApi,
  model: string,
  region: string | undefined,
): string {
  const how = auth.explicit ? "auth" : "auth (chosen from what was given)";
  const where = region ? ` in ${region}` : "";
  if (auth.mode === "sigv4") {
    const token = auth.credentials.sessionToken ? " with a session token" : "";
    const also = auth.keyAlsoFound ? '; an API key was also found, set auth: "bearer" to use it' : "";
    return `modelwire bedrock ${api} ${model}${where}: ${how} = SigV4 with credentials from settings${token}${also}`;
  }
  const source = auth.source === "apiKey" ? "settings.apiKey" : `env.${BEDROCK_BEARER_ENV}`;
  const ignored = auth.credentialsIgnored ? "; the credentials given are not used" : "";
  return `modelwire bedrock ${api} ${model}${where}: ${how} = bearer API key from ${source}${ignored}`;
}

/**
 * The `max_tokens` of a CountTokens body: the client's, raised above the thinking budget when thinking is
 * on (`{type: "enabled", budget_tokens}`) — InvokeModel refuses a budget that is not below `max_tokens` —
 * and 1 when the client sent none.
 */
function countMaxTokens(body: Record<string, unknown>): number {
  const asked =
    typeof body.max_tokens === "number" && Number.isInteger(body.max_tokens) ? body.max_tokens : 1;
  const thinking = body.thinking as { type?: unknown; budget_tokens?: unknown } | null | undefined;
  const budget =
    typeof thinking === "object" &&
    thinking !== null &&
    thinking.type === "enabled" &&
    typeof thinking.budget_tokens === "number" &&
    Number.isInteger(thinking.budget_tokens)
      ? thinking.budget_tokens
      : 0;
  return Math.max(asked, budget + 1);
}
