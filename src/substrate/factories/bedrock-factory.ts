/**
 * `bedrockFactory`: how a config with `protocol: "bedrock"` becomes a `bedrock()` provider — Converse or
 * InvokeModel, SigV4 or a bearer key.
 *
 * @module
 */
import * as z from "zod/mini";
import { CacheOptionSchema } from "../../core/call-options.ts";
import { bedrock } from "../../providers/bedrock.ts";
import type { ProviderFactory } from "../provider-factory.ts";
import { AnthropicProfileSchema, anthropicProfile } from "./anthropic-profile.ts";
import { defined } from "./defined.ts";

/** The fields only a `bedrock` config takes (`baseURL` is its endpoint, `apiKey` its bearer key). */
const BEDROCK_FIELDS = {
  /** The AWS region. */
  region: z.optional(z.string()),
  /** Model-profile overrides for a Claude model. */
  profile: AnthropicProfileSchema,
  /** Claude beta features. */
  betas: z.optional(z.array(z.string())),
  /** Default prompt caching (Claude models). */
  cache: z.optional(CacheOptionSchema),
  /**
   * What has no plain-JSON field of its own: `api` (`"converse"`, the default, or `"invoke"`), `auth`,
   * `credentials` (SigV4), `env` (where a bearer key is looked up), `additionalModelRequestFields`. Other
   * keys are kept for a factory registered in place of this one.
   */
  settings: z.optional(
    z.looseObject({
      api: z.optional(z.enum(["converse", "invoke"])),
      auth: z.optional(z.enum(["sigv4", "bearer"])),
      credentials: z.optional(
        z.strictObject({
          accessKeyId: z.string(),
          secretAccessKey: z.string(),
          sessionToken: z.optional(z.string()),
        }),
      ),
      env: z.optional(z.record(z.string(), z.optional(z.string()))),
      additionalModelRequestFields: z.optional(z.record(z.string(), z.unknown())),
    }),
  ),
};

/** The built-in `bedrock` protocol (also named by its wire name, `bedrock-converse`). */
export const bedrockFactory: ProviderFactory<typeof BEDROCK_FIELDS> = {
  schema: BEDROCK_FIELDS,
  aliases: ["bedrock-converse"],
  build(config, context) {
    const settings = config.settings ?? {};
    return bedrock({
      model: config.model,
      api: settings.api ?? "converse",
      ...defined({
        region: config.region,
        apiKey: config.apiKey,
        endpoint: config.baseURL,
        headers: config.headers,
        fetch: context.fetch,
        timeouts: config.timeouts,
        logger: context.logger,
        cache: config.cache,
        betas: config.betas,
        auth: settings.auth,
        credentials: settings.credentials,
        env: settings.env,
        profile: anthropicProfile(config.model, config.profile),
        additionalModelRequestFields: settings.additionalModelRequestFields,
      }),
    });
  },
};
