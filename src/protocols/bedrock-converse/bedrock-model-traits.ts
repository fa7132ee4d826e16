/**
 * What the request builder must know about a Bedrock model id, read from the id alone: foundation-model
 * ids (`anthropic.claude-sonnet-4-5-20250929-v1:0`), cross-region inference profiles
 * (`us.anthropic.claude-…`, `global.anthropic.claude-…`) and ARNs that contain one of those. Application
 * inference-profile ARNs name no model: they get the conservative traits (no cache points, no tool-result
 * status) unless the caller says the model is Claude.
 *
 * @module
 */

/** Facts about a Bedrock model that change the Converse request. */
export interface BedrockModelTraits {
  /** An Anthropic Claude model (thinking through `additionalModelRequestFields`, InvokeModel allowed). */
  anthropic: boolean;
  /** An Amazon Nova model. */
  nova: boolean;
  /** `cachePoint` blocks accepted in `system` and `messages` (Claude and Nova). */
  cachePoints: boolean;
  /** `cachePoint` accepted in `toolConfig.tools` (Claude only). */
  toolCachePoint: boolean;
  /** `toolResult.status` accepted (Claude and Nova); other models get the error said in the text. */
  toolResultStatus: boolean;
}

/** True for ids and ARNs that name an Anthropic Claude model on Bedrock. */
export function isAnthropicBedrockModel(model: string): boolean {
  return /(?:^|[.:/])anthropic\.|claude/i.test(model);
}

/** The traits of a model id; `anthropic` forces the Claude traits (an application profile known to be Claude). */
export function bedrockModelTraits(
  model: string,
  anthropic: boolean = isAnthropicBedrockModel(model),
): BedrockModelTraits {
  const nova = /(?:^|[.:/])amazon\.nova/i.test(model);
  return {
    anthropic,
    nova,
    cachePoints: anthropic || nova,
    toolCachePoint: anthropic,
    toolResultStatus: anthropic || nova,
  };
}
