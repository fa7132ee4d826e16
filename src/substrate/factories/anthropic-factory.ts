/**
 * `anthropicFactory`: how a config with `protocol: "anthropic"` becomes an `anthropic()` provider.
 *
 * @module
 */
import * as z from "zod/mini";
import { CacheOptionSchema } from "../../core/call-options.ts";
import { ValidationError } from "../../core/validation-error.ts";
import { anthropic } from "../../providers/anthropic.ts";
import type { ProviderFactory } from "../provider-factory.ts";
import { AnthropicProfileSchema, anthropicProfile } from "./anthropic-profile.ts";
import { defined } from "./defined.ts";

/** The fields only an `anthropic` config takes. */
const ANTHROPIC_FIELDS = {
  /** Model-profile overrides on top of the built-in profile of `model`. */
  profile: AnthropicProfileSchema,
  /** The `anthropic-version` header. */
  anthropicVersion: z.optional(z.string()),
  /** Beta features, sent as `anthropic-beta`. */
  betas: z.optional(z.array(z.string())),
  /** Default prompt caching. */
  cache: z.optional(CacheOptionSchema),
  /** Server-side context management (`context_management`: compaction, clearing old tool results). */
  contextManagement: z.optional(z.object({ edits: z.array(z.looseObject({ type: z.string() })) })),
};

/** The built-in `anthropic` protocol (also named by its wire name, `anthropic-messages`). */
export const anthropicFactory: ProviderFactory<typeof ANTHROPIC_FIELDS> = {
  schema: ANTHROPIC_FIELDS,
  aliases: ["anthropic-messages"],
  build(config, context) {
    if (config.apiKey === undefined || config.apiKey === "") {
      throw new ValidationError([{ path: "apiKey", message: "required: an Anthropic API key" }]);
    }
    return anthropic({
      apiKey: config.apiKey,
      model: config.model,
      ...defined({
        baseURL: config.baseURL,
        headers: config.headers,
        fetch: context.fetch,
        timeouts: config.timeouts,
        anthropicVersion: config.anthropicVersion,
        betas: config.betas,
        cache: config.cache,
        contextManagement: config.contextManagement,
        profile: anthropicProfile(config.model, config.profile),
      }),
    });
  },
};
