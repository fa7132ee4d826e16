/**
 * `openaiResponses()`: the OpenAI Responses API — OpenAI itself or a Responses-compatible server — as a
 * `Provider`. Settings, origin, URL, headers and the key only; translation is `openAIResponsesProtocol`'s,
 * the call's path the shared shell's (`httpProvider`).
 *
 * @module
 */
import type { CallOptions } from "../core/call-options.ts";
import { ValidationError } from "../core/validation-error.ts";
import { type OpenAIResponsesWire, openAIResponsesProtocol } from "../protocols/openai-responses/index.ts";
import { endpointURL, secretsOf } from "./http.ts";
import { type HttpProvider, type HttpProviderSettings, httpProvider } from "./http-provider.ts";
import { sseNativeEvent } from "./native.ts";

/** Settings of {@link openaiResponses}. */
export interface OpenAIResponsesSettings extends HttpProviderSettings {
  /** Required for the hosted OpenAI API; optional for a server at another `baseURL`. */
  apiKey?: string;
  /** Default `https://api.openai.com/v1`; the request goes to `<baseURL>/responses`. */
  baseURL?: string;
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
export type OpenAIResponsesProvider = HttpProvider<OpenAIResponsesCallOptions>;

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
  return httpProvider<OpenAIResponsesWire, OpenAIResponsesCallOptions>({
    protocol: openAIResponsesProtocol,
    provider: providerName,
    model,
    secrets: secretsOf(settings.apiKey, settings.headers),
    fetch: settings.fetch,
    timeouts: settings.timeouts,
    context: { provider: providerName, model, origin },
    request: (call) => {
      const { previousResponseId, store, ...options } = call.options;
      return { ...call, options, model, origin, store: store ?? settings.store ?? false, previousResponseId };
    },
    endpoint: () => {
      const headers: Record<string, string> = { "content-type": "application/json", ...settings.headers };
      if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
      return { url, headers };
    },
    // A client's Responses body passed through, with this provider's model.
    native: {
      origin,
      body: (request) => ({
        body: { ...request.body, model, stream: request.stream },
        droppedBetas: [],
        warnings: [],
      }),
      eventOf: sseNativeEvent,
    },
  });
}
