/**
 * `openAIResponsesFactory`: how a config with `protocol: "openai-responses"` becomes an
 * `openaiResponses()` provider.
 *
 * @module
 */
import { openaiResponses } from "../../providers/openai-responses.ts";
import type { ProviderFactory } from "../provider-factory.ts";
import { defined } from "./defined.ts";
import { OPENAI_ACCOUNT_FIELDS } from "./openai-account-fields.ts";

/** The fields only an `openai-responses` config takes. */
const OPENAI_RESPONSES_FIELDS = { ...OPENAI_ACCOUNT_FIELDS };

/** The built-in `openai-responses` protocol. */
export const openAIResponsesFactory: ProviderFactory<typeof OPENAI_RESPONSES_FIELDS> = {
  schema: OPENAI_RESPONSES_FIELDS,
  build(config, context) {
    const headers: Record<string, string> = { ...config.headers };
    if (config.organization) headers["openai-organization"] = config.organization;
    if (config.project) headers["openai-project"] = config.project;
    return openaiResponses({
      model: config.model,
      ...defined({
        apiKey: config.apiKey,
        baseURL: config.baseURL,
        headers: Object.keys(headers).length > 0 ? headers : undefined,
        fetch: context.fetch,
        timeouts: config.timeouts,
      }),
    });
  },
};
