/**
 * `openaiResponses()`: the OpenAI Responses API — OpenAI itself or a Responses-compatible server — as a
 * `Provider`. Transport only; translation is the `openai-responses` protocol module's.
 *
 * @module
 */
import type { CallOptions, Timeouts } from "../core/call-options.ts";
import type { MessageInput } from "../core/message.ts";
import type { Provider } from "../core/provider.ts";
import type { Response } from "../core/response.ts";
import type { StreamEvent } from "../core/stream-event.ts";
import { normalizeToolSpecs, type ToolSpecInput } from "../core/tool-spec.ts";
import { ValidationError } from "../core/validation-error.ts";
import { mapOpenAIError } from "../protocols/openai-chat/map-openai-error.ts";
import {
  assembleOpenAIResponsesStream,
  buildOpenAIResponsesRequest,
  OPENAI_RESPONSES,
  type OpenAIResponsesResponse,
  type OpenAIResponsesResponseContext,
  parseOpenAIResponsesResponse,
} from "../protocols/openai-responses/index.ts";
import { readSseBatches } from "../wire/sse.ts";
import {
  endpointURL,
  post,
  readJsonResponse,
  secretsOf,
  streamWithErrorMapping,
  type TransportContext,
  toScrubbedProviderError,
} from "./http.ts";
import { withRateLimitReset } from "./rate-limit-reset.ts";

/** Settings of {@link openaiResponses}. */
export interface OpenAIResponsesSettings {
  /** Required for the hosted OpenAI API; optional for a server at another `baseURL`. */
  apiKey?: string;
  model: string;
  /** Default `https://api.openai.com/v1`; the request goes to `<baseURL>/responses`. */
  baseURL?: string;
  /** Injected `fetch` (tests, proxies, tracing); `globalThis.fetch` when unset, resolved per call. */
  fetch?: typeof fetch;
  /** Default deadlines of every call (a call's `timeouts` override them); see `CallOptions.timeouts`. */
  timeouts?: Timeouts;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /**
   * `store` for every call (a call may override it): default `false` — the server keeps nothing, each
   * response carries its reasoning encrypted (`include: ["reasoning.encrypted_content"]`), and the next call
   * replays it from `native.blocks`. `true` lets later calls use `previousResponseId`.
   */
  store?: boolean;
  /**
   * Names the endpoint in `native.origin`: reasoning items replay only to the same origin and model.
   * Default `"openai"` for the hosted API, the `baseURL`'s host for any other server.
   */
  origin?: string;
  /** `Response.provider`; default `"openai"` for the hosted API, the origin otherwise. */
  name?: string;
}

/** Per-call options: the shared {@link CallOptions} plus the Responses API's conversation state. */
export interface OpenAIResponsesCallOptions extends CallOptions {
  /**
   * Continue a response stored on the server (`previous_response_id`; that call needed `store: true`).
   * Pass the whole history as usual: the server already holds everything through the last assistant
   * message, so only the messages after it are sent (tool results, the new user text), plus the system text
   * as `instructions`, which the server does not carry over.
   */
  previousResponseId?: string;
  /** Overrides the provider's `store` for this call. */
  store?: boolean;
}

/** A Responses provider: a `Provider` whose calls also take {@link OpenAIResponsesCallOptions}. */
export interface OpenAIResponsesProvider extends Provider {
  complete(
    messages: readonly MessageInput[],
    tools?: readonly ToolSpecInput[],
    options?: OpenAIResponsesCallOptions,
  ): Promise<Response>;
  stream(
    messages: readonly MessageInput[],
    tools?: readonly ToolSpecInput[],
    options?: OpenAIResponsesCallOptions,
  ): AsyncIterable<StreamEvent>;
}

const DEFAULT_BASE_URL = "https://api.openai.com/v1";

/**
 * An OpenAI Responses API provider. Reasoning items, messages and function calls come back verbatim in
 * `message.native.blocks`, and go back in the order they were produced when the history is sent to the
 * same origin and model.
 *
 * @example
 * ```ts
 * const gpt = openaiResponses({ apiKey: env.OPENAI_API_KEY, model: "gpt-5" });
 * const first = await gpt.complete(history, tools, { thinking: { effort: "low" } });
 * history.push(first.message, { role: "tool", toolResults: [{ callId: first.message.toolCalls[0].id, content: "sunny" }] });
 * const second = await gpt.complete(history, tools); // reasoning → call replayed in order, encrypted
 * ```
 */
export function openaiResponses(settings: OpenAIResponsesSettings): OpenAIResponsesProvider {
  if (typeof settings?.model !== "string" || settings.model === "") {
    throw new ValidationError([{ path: "model", message: "required: a model id" }]);
  }
  const baseURL = settings.baseURL ?? DEFAULT_BASE_URL;
  const url = endpointURL(baseURL, "responses");
  const host = new URL(url).host;
  const hosted = host === "api.openai.com";
  if (hosted && (typeof settings.apiKey !== "string" || settings.apiKey === "")) {
    throw new ValidationError([{ path: "apiKey", message: "required for the hosted OpenAI API" }]);
  }
  const model = settings.model;
  const origin = settings.origin ?? (hosted ? "openai" : host);
  const providerName = settings.name ?? origin;
  const transport: TransportContext = {
    provider: providerName,
    model,
    secrets: secretsOf(settings.apiKey, settings.headers),
  };

  const request = (
    messages: readonly MessageInput[],
    tools: readonly ToolSpecInput[] | undefined,
    options: OpenAIResponsesCallOptions,
    stream: boolean,
  ) => {
    const { previousResponseId, store, ...callOptions } = options;
    const { body, warnings } = buildOpenAIResponsesRequest({
      messages,
      tools: normalizeToolSpecs(tools),
      options: callOptions,
      model,
      origin,
      stream,
      store: store ?? settings.store ?? false,
      previousResponseId,
    });
    const headers: Record<string, string> = { "content-type": "application/json", ...settings.headers };
    if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
    const context: OpenAIResponsesResponseContext = { provider: providerName, model, origin, warnings };
    const response = post({
      fetch: settings.fetch,
      url,
      headers,
      body: JSON.stringify(body),
      signal: options.signal,
      stream,
      timeouts: { ...settings.timeouts, ...options.timeouts },
      context: transport,
      mapErrorBody: withRateLimitReset(mapOpenAIError),
    });
    return { response, context };
  };

  return {
    name: providerName,
    model,
    protocol: OPENAI_RESPONSES,

    async complete(messages, tools, options = {}): Promise<Response> {
      const { response, context } = request(messages, tools, options, false);
      const json = await readJsonResponse<OpenAIResponsesResponse>(
        response,
        transport,
        options.signal,
        (answer) => Array.isArray(answer.output) || answer.status === "failed",
        `${providerName} answered 200 without a response (no output array)`,
        (body) => ("error" in body && body.error ? mapOpenAIError(undefined, body) : undefined),
      );
      try {
        return parseOpenAIResponsesResponse(json, context);
      } catch (error) {
        // A `failed` response names its error; built without the call's key, so scrub it here.
        throw toScrubbedProviderError(error, transport, options.signal);
      }
    },

    async *stream(messages, tools, options = {}): AsyncGenerator<StreamEvent, void, undefined> {
      const { response, context } = request(messages, tools, options, true);
      yield* streamWithErrorMapping(
        response,
        (body) => assembleOpenAIResponsesStream(readSseBatches(body), context),
        transport,
        options.signal,
      );
    },
  };
}
