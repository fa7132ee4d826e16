/**
 * What hosted OpenAI models accept, read from the model id: the one table both OpenAI protocols (Chat
 * Completions and Responses) consult, so a model is a reasoning model, or takes a given effort for
 * `thinking: "off"`, the same way on both.
 *
 * @module
 */

/** The rules {@link openAIModelRules} finds for a model. */
export interface OpenAIModelRules {
  /**
   * A reasoning model: o-series, the gpt-5 family (not `gpt-5-chat-*`, the non-reasoning chat model) and the
   * codex models (`codex-mini-latest`, `gpt-5-codex`, `gpt-5.1-codex-max`, …). They take a reasoning effort,
   * reject `temperature` and `top_p`, and return their reasoning encrypted.
   */
  reasoning: boolean;
  /**
   * The effort that comes closest to `thinking: "off"`: `"none"` for gpt-5.1 and later (which reject
   * `"minimal"`), `"minimal"` for gpt-5 itself (which rejects `"none"`); undefined where no effort stops or
   * nearly stops reasoning — o-series models, codex models (low, medium and high only), `gpt-5-pro` (high
   * only) — and for models that do not reason.
   */
  offEffort: "none" | "minimal" | undefined;
}

/**
 * The OpenAI rules for a model id. A router prefix (`openai/gpt-5`, as OpenRouter names models) is ignored.
 *
 * @see https://platform.openai.com/docs/guides/reasoning
 * @example
 * ```ts
 * openAIModelRules("gpt-5-mini");        // { reasoning: true, offEffort: "minimal" }
 * openAIModelRules("gpt-5.1");           // { reasoning: true, offEffort: "none" }
 * openAIModelRules("gpt-5.1-codex-max"); // { reasoning: true, offEffort: undefined }
 * openAIModelRules("gpt-4.1");           // { reasoning: false, offEffort: undefined }
 * ```
 */
export function openAIModelRules(model: string): OpenAIModelRules {
  const id = model.replace(/^[^/]*\//, "");
  const reasoning = /^(?:o\d|gpt-5(?!-chat)|codex)/.test(id);
  let offEffort: OpenAIModelRules["offEffort"];
  // Codex and pro models take neither "none" nor "minimal" (gpt-5-codex: low, medium, high; gpt-5-pro: high).
  if (reasoning && !/codex|-pro(?![a-z])/.test(id)) {
    if (/^gpt-5\.\d/.test(id)) offEffort = "none";
    else if (/^gpt-5(?![.\d])/.test(id)) offEffort = "minimal";
  }
  return { reasoning, offEffort };
}
