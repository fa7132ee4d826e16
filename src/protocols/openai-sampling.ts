import type { CallOptions } from "../core/call-options.ts";

/**
 * `temperature` and `top_p` as both OpenAI protocols send them: as asked, except to a reasoning model,
 * which rejects them — there they are left out, each with a warning. `reasoning` is the caller's verdict
 * (`openAIModelRules(model).reasoning`, and for Chat only where the endpoint is hosted OpenAI).
 */
export function openAISampling(
  options: Pick<CallOptions, "temperature" | "topP">,
  model: string,
  reasoning: boolean,
  warnings: string[],
): { temperature?: number; top_p?: number } {
  const sampling: { temperature?: number; top_p?: number } = {};
  if (options.temperature !== undefined) {
    if (reasoning) warnings.push(`temperature is not supported by ${model}; left out`);
    else sampling.temperature = options.temperature;
  }
  if (options.topP !== undefined) {
    if (reasoning) warnings.push(`top_p is not supported by ${model}; left out`);
    else sampling.top_p = options.topP;
  }
  return sampling;
}
