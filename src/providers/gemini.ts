/**
 * `gemini()`: the Gemini API (Google AI Studio keys, `generativelanguage.googleapis.com`) as a
 * `Provider`. Settings, URL, headers and the key only — the body, the answer and the stream are
 * `googleGeminiProtocol`'s, the call's path the shared shell's (`httpProvider`).
 *
 * @module
 */
import type { Provider } from "../core/provider.ts";
import { ValidationError } from "../core/validation-error.ts";
import { type GeminiModelProfile, googleGeminiProtocol } from "../protocols/google-gemini/index.ts";
import { endpointURL, secretsOf } from "./http.ts";
import { type HttpProviderSettings, httpProvider } from "./http-provider.ts";

/** Settings of {@link gemini}. */
export interface GeminiSettings extends HttpProviderSettings {
  /** A Gemini API key (sent as `x-goog-api-key`, never in the URL). */
  apiKey: string;
  /** A Gemini model id, e.g. `"gemini-2.5-flash"` (a leading `models/` is accepted). */
  model: string;
  /** Default `https://generativelanguage.googleapis.com/v1beta`. */
  baseURL?: string;
  /** Model facts override (thinking mode and range, signatures, prices); looked up from the id by default. */
  profile?: GeminiModelProfile;
}

const DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta";

/**
 * A Gemini API provider: `POST {baseURL}/models/{model}:generateContent`, and
 * `:streamGenerateContent?alt=sse` for a stream. The model's parts (thought summaries, function calls)
 * come back verbatim in `message.native.blocks`, their `thoughtSignature`s in place, and go back byte for
 * byte when the history is sent to the same model here (`native.origin` `"gemini"`).
 *
 * @example
 * ```ts
 * const flash = gemini({ apiKey: env.GEMINI_API_KEY, model: "gemini-2.5-flash" });
 * const first = await flash.complete(history, tools, { thinking: { budgetTokens: 2048 } });
 * history.push(first.message, { role: "tool", toolResults: [{ callId: first.message.toolCalls[0].id, content: "sunny" }] });
 * const second = await flash.complete(history, tools); // the call's thoughtSignature goes back in place
 * ```
 */
export function gemini(settings: GeminiSettings): Provider {
  if (typeof settings?.apiKey !== "string" || settings.apiKey === "") {
    throw new ValidationError([{ path: "apiKey", message: "required: a Gemini API key" }]);
  }
  if (typeof settings.model !== "string" || settings.model.replace(/^models\//, "") === "") {
    throw new ValidationError([{ path: "model", message: "required: a Gemini model id" }]);
  }
  const model = settings.model.replace(/^models\//, "");
  const base = settings.baseURL ?? DEFAULT_BASE_URL;
  const path = `models/${encodeURIComponent(model)}`;
  const completeURL = endpointURL(base, `${path}:generateContent`);
  const stream = new URL(endpointURL(base, `${path}:streamGenerateContent`));
  stream.searchParams.set("alt", "sse");
  const streamURL = stream.toString();
  const origin = "gemini";

  return httpProvider({
    protocol: googleGeminiProtocol,
    provider: "gemini",
    model,
    secrets: secretsOf(settings.apiKey, settings.headers),
    fetch: settings.fetch,
    timeouts: settings.timeouts,
    context: { provider: "gemini", model, origin },
    request: (call) => ({ ...call, model, origin, profile: settings.profile }),
    endpoint: (call) => ({
      url: call.stream ? streamURL : completeURL,
      headers: { "content-type": "application/json", ...settings.headers, "x-goog-api-key": settings.apiKey },
    }),
  });
}
