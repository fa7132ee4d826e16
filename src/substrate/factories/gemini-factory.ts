/**
 * `geminiFactory`: how a config with `protocol: "google-gemini"` becomes a `gemini()` provider — the
 * Gemini API with an API key. (No `"gemini"` alias: that name stays free for a host's own factory, as
 * the registry's examples register one.)
 *
 * @module
 */
import { ValidationError } from "../../core/validation-error.ts";
import { gemini } from "../../providers/gemini.ts";
import type { ProviderFactory } from "../provider-factory.ts";
import { defined } from "./defined.ts";

/** The fields only a `google-gemini` config takes: none beyond the shared ones. */
const GEMINI_FIELDS = {};

/** The built-in `google-gemini` protocol. */
export const geminiFactory: ProviderFactory<typeof GEMINI_FIELDS> = {
  schema: GEMINI_FIELDS,
  build(config, context) {
    if (config.apiKey === undefined || config.apiKey === "") {
      throw new ValidationError([{ path: "apiKey", message: "required: a Gemini API key" }]);
    }
    return gemini({
      apiKey: config.apiKey,
      model: config.model,
      ...defined({
        baseURL: config.baseURL,
        headers: config.headers,
        fetch: context.fetch,
        timeouts: config.timeouts,
      }),
    });
  },
};
