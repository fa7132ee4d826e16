/**
 * `geminiFactory`: how a config with `protocol: "google-gemini"` (or `"gemini"`) becomes a `gemini()`
 * provider — the Gemini API with an API key.
 *
 * @module
 */
import { ValidationError } from "../../core/validation-error.ts";
import { gemini } from "../../providers/gemini.ts";
import type { ProviderFactory } from "../provider-factory.ts";
import { defined } from "./defined.ts";

/** The fields only a `google-gemini` config takes: none beyond the shared ones. */
const GEMINI_FIELDS = {};

/** The built-in `google-gemini` protocol (also named `gemini`). */
export const geminiFactory: ProviderFactory<typeof GEMINI_FIELDS> = {
  schema: GEMINI_FIELDS,
  aliases: ["gemini"],
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
