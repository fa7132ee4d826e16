/**
 * `anthropic()`: the first-party Anthropic Messages API as a `Provider`. Settings, URL, headers and the
 * API key only — the request body, the answer and the stream are `anthropicMessagesProtocol`'s, the call's
 * path the shared shell's (`httpProvider`).
 *
 * @module
 */
import type { CacheOption } from "../core/call-options.ts";
import type { Provider } from "../core/provider.ts";
import { ValidationError } from "../core/validation-error.ts";
import type { AnthropicContextManagement } from "../protocols/anthropic-messages/anthropic-wire.ts";
import { anthropicMessagesProtocol } from "../protocols/anthropic-messages/index.ts";
import { type AnthropicModelProfile, anthropicModelProfile } from "./anthropic-model-profiles.ts";
import { endpointURL, secretsOf } from "./http.ts";
import { type HttpProviderSettings, httpProvider } from "./http-provider.ts";
import { mergeBetas, sseNativeEvent } from "./native.ts";

/** Settings of {@link anthropic}. */
export interface AnthropicSettings extends HttpProviderSettings {
  apiKey: string;
  /** A Claude model id, e.g. `"claude-sonnet-4-6"`. */
  model: string;
  /** Default `https://api.anthropic.com/v1`. */
  baseURL?: string;
  /** `anthropic-version` header; default `2023-06-01`. */
  anthropicVersion?: string;
  /** Beta features, sent as `anthropic-beta`. */
  betas?: readonly string[];
  /** Prompt caching when a call does not say; default `"auto"` (see `CacheOption`). */
  cache?: CacheOption;
  /** Model facts override (thinking mode, limits, prices); looked up from the model id by default. */
  profile?: AnthropicModelProfile;
  /**
   * Server-side context management on every call (`context_management`), its beta flag added:
   * `compact-2026-01-12` for a `compact_*` edit, `context-management-2025-06-27` for the others. A
   * compaction's `compaction` block is kept in the turn's `native` blocks and replayed as it came.
   */
  contextManagement?: AnthropicContextManagement;
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
  const edits = settings.contextManagement?.edits;
  if (settings.contextManagement && !edits?.every((edit) => typeof edit?.type === "string"))
    throw new ValidationError([
      {
        path: "contextManagement.edits",
        message: 'a list of edits, each with its type ("compact_20260112")',
      },
    ]);
  const model = settings.model;
  const profile = settings.profile ?? anthropicModelProfile(model);
  const url = endpointURL(settings.baseURL ?? DEFAULT_BASE_URL, "messages");
  const countURL = endpointURL(settings.baseURL ?? DEFAULT_BASE_URL, "messages/count_tokens");
  const target = { model, origin: "anthropic" };
  const contextManagement = settings.contextManagement;
  // The edits' beta flags: compaction has its own, the clearing edits share context management's.
  const compacts = edits?.map((edit) => edit.type.startsWith("compact_")) ?? [];
  const betas = mergeBetas(
    settings.betas,
    compacts.includes(true) ? ["compact-2026-01-12"] : [],
    compacts.includes(false) ? ["context-management-2025-06-27"] : [],
  );

  return httpProvider({
    protocol: anthropicMessagesProtocol,
    provider: "anthropic",
    model,
    secrets: secretsOf(settings.apiKey, settings.headers),
    fetch: settings.fetch,
    timeouts: settings.timeouts,
    context: { provider: "anthropic", ...target },
    request: (call) => ({
      ...call,
      target,
      profile,
      defaultCache: settings.cache ?? "auto",
      contextManagement,
    }),
    endpoint: () => {
      const headers: Record<string, string> = {
        "content-type": "application/json",
        "anthropic-version": settings.anthropicVersion ?? "2023-06-01",
        ...settings.headers,
        "x-api-key": settings.apiKey,
      };
      if (betas.length > 0) headers["anthropic-beta"] = betas.join(",");
      return { url, headers };
    },
    // A client's Messages body passed through: the model is this provider's, the client's betas and
    // version are sent on (the settings' betas too).
    native: {
      origin: "anthropic",
      body: (request) => ({
        // The provider's context management too, unless the client sent its own.
        body: {
          ...(contextManagement && request.body.context_management === undefined
            ? { context_management: contextManagement }
            : {}),
          ...request.body,
          model,
          stream: request.stream,
        },
        droppedBetas: [],
        warnings: [],
      }),
      headers: (request) => {
        const headers: Record<string, string> = {};
        const betas = mergeBetas(settings.betas, request.betas);
        if (betas.length > 0) headers["anthropic-beta"] = betas.join(",");
        if (request.version) headers["anthropic-version"] = request.version;
        return headers;
      },
      eventOf: sseNativeEvent,
      countTokens: {
        request: (request) => {
          const { stream: _stream, ...body } = request.body;
          return { url: countURL, body: { ...body, model } };
        },
        read: (json) => (json as { input_tokens?: number } | null)?.input_tokens,
      },
    },
  });
}
