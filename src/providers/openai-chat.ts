/**
 * `openaiChat()`: OpenAI Chat Completions — the hosted API or any OpenAI-compatible server — as a
 * `Provider`. Settings, endpoint profiles, URL, headers, auth and session affinity only; translation is
 * `openAIChatProtocol`'s, the call's path the shared shell's (`httpProvider`).
 *
 * @module
 */
import type { Provider } from "../core/provider.ts";
import { ValidationError } from "../core/validation-error.ts";
import { type OpenAIChatEndpointProfile, openAIChatProtocol } from "../protocols/openai-chat/index.ts";
import { type AffinityResolver, applyAffinity } from "./affinity.ts";
import { endpointURL, secretsOf } from "./http.ts";
import { type HttpProviderSettings, httpProvider } from "./http-provider.ts";

/** Built-in endpoint kinds. */
export type OpenAIChatEndpointKind = "openai" | "vllm" | "ollama" | "generic";

/** A profile: a built-in kind's, with any field overridden. `kind` names it (`native.origin`). */
export type OpenAIChatEndpoint =
  | OpenAIChatEndpointKind
  | (Partial<OpenAIChatEndpointProfile> & { kind: string; baseURL?: string });

const ENDPOINTS: Record<OpenAIChatEndpointKind, OpenAIChatEndpointProfile & { baseURL: string | undefined }> =
  {
    openai: {
      kind: "openai",
      baseURL: "https://api.openai.com/v1",
      maxTokensField: "max_completion_tokens",
      streamUsage: true,
      reasoningEffort: true,
      parallelToolCalls: true,
      echoReasoning: false,
      openaiModelRules: true,
    },
    vllm: {
      kind: "vllm",
      baseURL: "http://localhost:8000/v1",
      maxTokensField: "max_tokens",
      streamUsage: true,
      reasoningEffort: true,
      parallelToolCalls: true,
      echoReasoning: false,
      openaiModelRules: false,
    },
    ollama: {
      kind: "ollama",
      baseURL: "http://localhost:11434/v1",
      maxTokensField: "max_tokens",
      streamUsage: true,
      reasoningEffort: true,
      parallelToolCalls: false,
      echoReasoning: false,
      openaiModelRules: false,
    },
    generic: {
      kind: "generic",
      baseURL: undefined,
      maxTokensField: "max_tokens",
      streamUsage: false,
      reasoningEffort: false,
      parallelToolCalls: false,
      echoReasoning: false,
      openaiModelRules: false,
    },
  };

/** The full profile for an `endpoint` setting: a built-in kind, or overrides on top of `generic`. */
export function openAIChatEndpointProfile(
  endpoint: OpenAIChatEndpoint = "openai",
): OpenAIChatEndpointProfile & {
  baseURL: string | undefined;
} {
  if (typeof endpoint === "string") {
    // Own keys only: "constructor" or "__proto__" must not find Object.prototype members.
    const found = Object.hasOwn(ENDPOINTS, endpoint) ? ENDPOINTS[endpoint] : undefined;
    if (!found) {
      throw new ValidationError([
        {
          path: "endpoint",
          message: `unknown endpoint ${JSON.stringify(endpoint)}; use one of ${Object.keys(ENDPOINTS).join(", ")} or a profile object`,
        },
      ]);
    }
    return { ...found };
  }
  const base = Object.hasOwn(ENDPOINTS, endpoint.kind)
    ? ENDPOINTS[endpoint.kind as OpenAIChatEndpointKind]
    : ENDPOINTS.generic;
  return { ...base, ...endpoint };
}

/** Settings of {@link openaiChat}. */
export interface OpenAIChatSettings extends HttpProviderSettings {
  /** Required for hosted OpenAI; optional for servers without auth (vLLM, Ollama). */
  apiKey?: string;
  /** Default: the endpoint's (`https://api.openai.com/v1`, `http://localhost:8000/v1` for vLLM, …). */
  baseURL?: string;
  /** What the server speaks; default `"openai"`. */
  endpoint?: OpenAIChatEndpoint;
  /** Session affinity for routers in front of replicas: a header or query parameter per call. */
  affinity?: AffinityResolver;
  /** OpenAI organisation / project headers. */
  organization?: string;
  project?: string;
}

/**
 * An OpenAI Chat Completions provider, for the hosted API or an OpenAI-compatible server.
 *
 * @example
 * ```ts
 * const gpt = openaiChat({ apiKey: env.OPENAI_API_KEY, model: "gpt-4.1-mini" });
 * const local = openaiChat({ model: "Qwen/Qwen3-8B", endpoint: { kind: "vllm", textToolCalls: "hermes" } });
 * const response = await local.complete([{ role: "user", content: "hi" }]);
 * ```
 */
export function openaiChat(settings: OpenAIChatSettings): Provider {
  if (typeof settings?.model !== "string" || settings.model === "") {
    throw new ValidationError([{ path: "model", message: "required: a model id" }]);
  }
  const profile = openAIChatEndpointProfile(settings.endpoint);
  const baseURL = settings.baseURL ?? profile.baseURL;
  if (!baseURL) {
    throw new ValidationError([{ path: "baseURL", message: `required for the ${profile.kind} endpoint` }]);
  }
  if (profile.kind === "openai" && !settings.apiKey) {
    // Only the host is named: a base URL may carry user:password.
    const host = settings.baseURL === undefined ? undefined : hostOf(settings.baseURL);
    throw new ValidationError([
      {
        path: "apiKey",
        message:
          host === undefined || host === "api.openai.com"
            ? "required for the hosted OpenAI API"
            : `required with endpoint "openai" (the default); for a server at ${host} that needs no key, set endpoint to "generic", "vllm" or "ollama"`,
      },
    ]);
  }
  const model = settings.model;
  const providerName = profile.kind === "openai" ? "openai" : profile.kind;
  const url = endpointURL(baseURL, "chat/completions");
  return httpProvider({
    protocol: openAIChatProtocol,
    provider: providerName,
    model,
    secrets: secretsOf(settings.apiKey, settings.headers),
    fetch: settings.fetch,
    timeouts: settings.timeouts,
    context: { provider: providerName, model, profile },
    request: (call) => ({ ...call, model, profile }),
    endpoint: ({ options }) => {
      const headers: Record<string, string> = { "content-type": "application/json", ...settings.headers };
      if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
      if (settings.organization) headers["openai-organization"] = settings.organization;
      if (settings.project) headers["openai-project"] = settings.project;
      return applyAffinity(settings.affinity, { url, headers, sessionId: options.sessionId, model });
    },
  });
}

/** The host of a URL, or undefined when it is not one (the URL check that follows names that problem). */
function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}
