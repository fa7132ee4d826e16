/**
 * The NDJSON Chat provider and its `createProvider` factory, written from outside the package: settings,
 * URL, headers and the key handed to `httpProvider` with the protocol object (see ./protocol.ts); the
 * factory brings the schema of the config fields only this protocol reads (`tenant`, required; `region`,
 * also a field of bedrock; `safety`).
 *
 * @module
 */
import type { Provider, ProviderFactory } from "modelwire";
import { endpointURL, type HttpProviderSettings, httpProvider, secretsOf } from "modelwire/protocols";
import * as z from "zod/mini";
import { ndjsonChatProtocol } from "./protocol.ts";

/** Settings of {@link ndjsonChat}. */
export interface NdjsonChatSettings extends HttpProviderSettings {
  apiKey?: string;
  /** The tenant every request is billed to (`x-tenant`). */
  tenant: string;
  /** Default `https://ndjson-chat.example/v1`; its host is `native.origin`. */
  baseURL?: string;
  /** `x-region`, when set. */
  region?: string;
  /** `x-safety`, when set. */
  safety?: "strict" | "relaxed";
}

/** An NDJSON Chat provider. */
export function ndjsonChat(settings: NdjsonChatSettings): Provider {
  const url = endpointURL(settings.baseURL ?? "https://ndjson-chat.example/v1", "chat");
  const origin = new URL(url).host;
  const { model } = settings;
  return httpProvider({
    protocol: ndjsonChatProtocol,
    provider: "ndjson-chat",
    model,
    secrets: secretsOf(settings.apiKey, settings.headers),
    fetch: settings.fetch,
    timeouts: settings.timeouts,
    context: { provider: "ndjson-chat", model, origin },
    request: ({ messages, tools, options, stream }) => ({ messages, tools, options, stream, model, origin }),
    endpoint: () => {
      const headers: Record<string, string> = {
        "content-type": "application/json",
        ...settings.headers,
        "x-tenant": settings.tenant,
      };
      if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
      if (settings.region) headers["x-region"] = settings.region;
      if (settings.safety) headers["x-safety"] = settings.safety;
      return { url, headers };
    },
  });
}

/** The fields only an `ndjson-chat` config takes. */
const NDJSON_CHAT_FIELDS = {
  tenant: z.string().check(z.minLength(1)),
  region: z.optional(z.string()),
  safety: z.optional(z.enum(["strict", "relaxed"])),
};

/** `createProvider(config, { factories: { "ndjson-chat": ndjsonChatFactory } })`. */
export const ndjsonChatFactory: ProviderFactory<typeof NDJSON_CHAT_FIELDS> = {
  schema: NDJSON_CHAT_FIELDS,
  aliases: ["ndjson"],
  build: (config, context) =>
    ndjsonChat({
      model: config.model,
      tenant: config.tenant,
      apiKey: config.apiKey,
      baseURL: config.baseURL,
      headers: config.headers,
      timeouts: config.timeouts,
      region: config.region,
      safety: config.safety,
      fetch: context.fetch,
    }),
};
