/**
 * `vertexFactory`: how a config with `protocol: "vertex"` becomes a `vertex()` provider — Claude or Gemini
 * on Vertex AI, with a service-account key, an access token or an API key (express mode).
 *
 * @module
 */
import * as z from "zod/mini";
import { CacheOptionSchema } from "../../core/call-options.ts";
import { vertex } from "../../providers/vertex.ts";
import type { ProviderFactory } from "../provider-factory.ts";
import { AnthropicProfileSchema, anthropicProfile } from "./anthropic-profile.ts";
import { defined } from "./defined.ts";

/** The fields only a `vertex` config takes (`apiKey` is express mode's key, `baseURL` replaces the host). */
const VERTEX_FIELDS = {
  /** The Google Cloud project id. */
  project: z.optional(z.string()),
  /** `global`, `us`, `eu` or a region (`us-east5`). */
  location: z.optional(z.string()),
  /** Whose model: `google` (Gemini) or `anthropic` (Claude); read from the model id when unset. */
  publisher: z.optional(z.enum(["google", "anthropic"])),
  /** `v1` (default) or `v1beta1`. */
  apiVersion: z.optional(z.enum(["v1", "v1beta1"])),
  /** Model-profile overrides for a Claude model. */
  profile: AnthropicProfileSchema,
  /** Claude beta features. */
  betas: z.optional(z.array(z.string())),
  /** Default prompt caching (Claude models). */
  cache: z.optional(CacheOptionSchema),
  /**
   * The credentials, which never sit in a plain config (the Worker fills them in from its secrets):
   * `credentials`, a service-account key (its JSON text or the object), or `accessToken`. Other keys are
   * kept for a factory registered in place of this one.
   */
  settings: z.optional(
    z.looseObject({
      credentials: z.optional(
        z.union([z.string(), z.looseObject({ client_email: z.string(), private_key: z.string() })]),
      ),
      accessToken: z.optional(z.string()),
    }),
  ),
};

/** The built-in `vertex` protocol (also named `vertex-ai`). */
export const vertexFactory: ProviderFactory<typeof VERTEX_FIELDS> = {
  schema: VERTEX_FIELDS,
  aliases: ["vertex-ai"],
  build(config, context) {
    const settings = config.settings ?? {};
    return vertex({
      model: config.model,
      ...defined({
        project: config.project,
        location: config.location,
        publisher: config.publisher,
        apiVersion: config.apiVersion,
        apiKey: config.apiKey,
        baseURL: config.baseURL,
        headers: config.headers,
        fetch: context.fetch,
        timeouts: config.timeouts,
        cache: config.cache,
        betas: config.betas,
        credentials: settings.credentials as Parameters<typeof vertex>[0]["credentials"],
        accessToken: settings.accessToken,
        profile: anthropicProfile(config.model, config.profile),
      }),
    });
  },
};
