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
  /**
   * `toolChoice` `any` / `tool` honoured (Claude, Nova, Mistral Large, GLM, Kimi). Other models (Llama,
   * most open-weight models) take no forced choice on Converse: the choice is left to the model instead.
   *
   * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolChoice.html
   */
  forcedToolChoice: boolean;
  /**
   * Converse's native structured output (`outputConfig.textFormat` with a JSON Schema): Claude Haiku 4.5,
   * Sonnet 4.5 / 4.6, Opus 4.5 / 4.6, and the open-weight models Bedrock lists (Qwen3, DeepSeek V3.x,
   * Mistral Large 3 / Ministral 3 / Magistral Small, Gemma 3 12B / 27B, Nemotron Nano, MiniMax M2, Kimi,
   * GLM, gpt-oss). Every other model gets the forced output tool.
   *
   * @see https://docs.aws.amazon.com/bedrock/latest/userguide/structured-output.html
   */
  nativeStructuredOutput: boolean;
  /**
   * Which media a `toolResult`'s `content` takes. What a model does not take there is sent in a user turn
   * right after the results. Claude and Llama take images and documents; Mistral documents only; Nova
   * images only (it rejects binary documents there); Qwen and Kimi neither; other models images.
   */
  toolResultMedia: { image: boolean; document: boolean };
  /**
   * Which blocks may share a user turn with `toolResult` blocks: `"all"`, `"no-documents"` (Claude
   * rejects a document next to a result) or `"none"` (Llama, Mistral and Writer want the results alone).
   * Where they may not, the turn is split with a `"."` assistant turn in between.
   */
  toolResultNeighbours: "all" | "no-documents" | "none";
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
  const vendor = (name: string): boolean => new RegExp(`(?:^|[.:/])${name}\\.`, "i").test(model);
  const meta = vendor("meta");
  const mistral = vendor("mistral");
  const writer = vendor("writer");
  const qwen = vendor("qwen");
  const kimi = vendor("moonshot") || vendor("moonshotai");
  const zai = vendor("zai");
  return {
    anthropic,
    nova,
    cachePoints: anthropic || nova,
    toolCachePoint: anthropic,
    toolResultStatus: anthropic || nova,
    forcedToolChoice: anthropic || nova || zai || kimi || /mistral\.mistral-large/i.test(model),
    nativeStructuredOutput: anthropic
      ? CLAUDE_STRUCTURED_OUTPUT.test(model)
      : OPEN_STRUCTURED_OUTPUT.test(model),
    toolResultMedia: {
      image: !(mistral || qwen || kimi),
      document: anthropic || meta || mistral,
    },
    toolResultNeighbours: anthropic ? "no-documents" : meta || mistral || writer ? "none" : "all",
  };
}

/** Claude models with Converse structured output (Bedrock's list; Opus 4.1 and later Opus ids are not on it). */
const CLAUDE_STRUCTURED_OUTPUT = /claude-(?:haiku-4-5|sonnet-4-5|sonnet-4-6|opus-4-5|opus-4-6)/i;

/** Open-weight models Bedrock lists for structured output. */
const OPEN_STRUCTURED_OUTPUT =
  /(?:^|[.:/])(?:qwen\.qwen3|deepseek\.v3|mistral\.(?:mistral-large-3|ministral-3|magistral-small)|google\.gemma-3-(?:12b|27b)|nvidia\.nemotron-nano|minimax\.minimax-m2|moonshot(?:ai)?\.kimi|zai\.glm|openai\.gpt-oss)/i;
