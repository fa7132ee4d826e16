/**
 * `anthropic()`: the first-party Anthropic Messages API as a `Provider`. Transport only — the request body,
 * the response and the stream are the `anthropic-messages` protocol module's.
 *
 * @module
 */
import type { CacheOption, CallOptions, Timeouts } from "../core/call-options.ts";
import type { MessageInput } from "../core/message.ts";
import type { Provider } from "../core/provider.ts";
import type { Response } from "../core/response.ts";
import type { StreamEvent } from "../core/stream-event.ts";
import { normalizeToolSpecs, type ToolSpecInput } from "../core/tool-spec.ts";
import { ValidationError } from "../core/validation-error.ts";
import {
  ANTHROPIC_MESSAGES,
  type AnthropicMessage,
  type AnthropicResponseContext,
  assembleAnthropicStream,
  buildAnthropicRequest,
  mapAnthropicError,
  parseAnthropicResponse,
} from "../protocols/anthropic-messages/index.ts";
import { readSseBatches } from "../wire/sse.ts";
import { type AnthropicModelProfile, anthropicModelProfile } from "./anthropic-model-profiles.ts";
import {
  type ErrorBodyInfo,
  endpointURL,
  post,
  readJsonResponse,
  secretsOf,
  streamWithErrorMapping,
  type TransportContext,
} from "./http.ts";

/** Settings of {@link anthropic}. */
export interface AnthropicSettings {
  apiKey: string;
  /** A Claude model id, e.g. `"claude-sonnet-4-6"`. */
  model: string;
  /** Default `https://api.anthropic.com/v1`. */
  baseURL?: string;
  /** Injected `fetch` (tests, proxies, tracing); `globalThis.fetch` when unset, resolved per call. */
  fetch?: typeof fetch;
  /** Default deadlines of every call (a call's `timeouts` override them); see `CallOptions.timeouts`. */
  timeouts?: Timeouts;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** `anthropic-version` header; default `2023-06-01`. */
  anthropicVersion?: string;
  /** Beta features, sent as `anthropic-beta`. */
  betas?: readonly string[];
  /** Prompt caching when a call does not say; default `"auto"` (see `CacheOption`). */
  cache?: CacheOption;
  /** Model facts override (thinking mode, limits, prices); looked up from the model id by default. */
  profile?: AnthropicModelProfile;
}

const DEFAULT_BASE_URL = "https://api.anthropic.com/v1";

/**
 * An Anthropic Messages API provider.
 *
 * @example
 * ```ts
 * const claude = anthropic({ apiKey: env.ANTHROPIC_API_KEY, model: "claude-sonnet-4-6" });
 * for await (const event of claude.stream(history, tools, { thinking: "adaptive", maxTokens: 8000 })) {
 *   if (event.type === "text-delta") write(event.text);
 *   if (event.type === "done") history.push(event.response.message); // thinking replays verbatim next turn
 * }
 * ```
 */
export function anthropic(settings: AnthropicSettings): Provider {
  if (typeof settings?.apiKey !== "string" || settings.apiKey === "") {
    throw new ValidationError([{ path: "apiKey", message: "required: an Anthropic API key" }]);
  }
  if (typeof settings.model !== "string" || settings.model === "") {
    throw new ValidationError([{ path: "model", message: "required: a Claude model id" }]);
  }
  const model = settings.model;
  const profile = settings.profile ?? anthropicModelProfile(model);
  const url = endpointURL(settings.baseURL ?? DEFAULT_BASE_URL, "messages");
  const transport: TransportContext = {
    provider: "anthropic",
    model,
    secrets: secretsOf(settings.apiKey, settings.headers),
  };

  const headers = (): Record<string, string> => {
    const result: Record<string, string> = {
      "content-type": "application/json",
      "anthropic-version": settings.anthropicVersion ?? "2023-06-01",
      ...settings.headers,
      "x-api-key": settings.apiKey,
    };
    if (settings.betas?.length) result["anthropic-beta"] = settings.betas.join(",");
    return result;
  };

  const request = (
    messages: readonly MessageInput[],
    tools: readonly ToolSpecInput[] | undefined,
    options: CallOptions,
    stream: boolean,
  ) => {
    const { body, warnings } = buildAnthropicRequest({
      messages,
      tools: normalizeToolSpecs(tools),
      options,
      target: { model, origin: "anthropic" },
      profile,
      stream,
      defaultCache: settings.cache ?? "auto",
    });
    const context: AnthropicResponseContext = { provider: "anthropic", model, origin: "anthropic", warnings };
    const response = post({
      fetch: settings.fetch,
      url,
      headers: headers(),
      body: JSON.stringify(body),
      signal: options.signal,
      stream,
      timeouts: { ...settings.timeouts, ...options.timeouts },
      context: transport,
      mapErrorBody: anthropicErrorBody,
    });
    return { response, context };
  };

  return {
    name: "anthropic",
    model,
    protocol: ANTHROPIC_MESSAGES,

    async complete(messages, tools, options = {}): Promise<Response> {
      const { response, context } = request(messages, tools, options, false);
      const json = await readJsonResponse<AnthropicMessage>(
        response,
        transport,
        options.signal,
        (message) => Array.isArray(message.content),
        "Anthropic answered 200 without a message (no content array)",
      );
      return parseAnthropicResponse(json, context);
    },

    async *stream(messages, tools, options = {}): AsyncGenerator<StreamEvent, void, undefined> {
      const { response, context } = request(messages, tools, options, true);
      yield* streamWithErrorMapping(
        response,
        (body) => assembleAnthropicStream(readSseBatches(body), context),
        transport,
        options.signal,
      );
    },
  };
}

function anthropicErrorBody(status: number, body: unknown): ErrorBodyInfo {
  return mapAnthropicError(status, typeof body === "object" && body !== null ? body : undefined);
}
