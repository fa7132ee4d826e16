import type { CacheOption, CallOptions } from "../../core/call-options.ts";
import type { MessageInput } from "../../core/message.ts";
import type { PreparedResponseFormat } from "../../core/structured-output.ts";
import type { ToolSpec } from "../../core/tool-spec.ts";
import type { AnthropicModelProfile } from "../anthropic-messages/anthropic-model-profile.ts";
import { buildAnthropicRequest } from "../anthropic-messages/build-anthropic-request.ts";
import { BEDROCK_ORIGIN } from "../bedrock-converse/bedrock-converse-wire.ts";
import type { BuiltRequest } from "../protocol.ts";
import { BEDROCK_ANTHROPIC_VERSION, type BedrockInvokeRequestBody } from "./bedrock-invoke-wire.ts";

/** Everything an InvokeModel request for a Claude model is built from. */
export interface BedrockInvokeRequestInput {
  messages: readonly MessageInput[] | readonly unknown[];
  tools: readonly ToolSpec[];
  options: CallOptions;
  /** The model id as it goes in the URL; `native` blocks replay only to this exact id (origin `"bedrock"`). */
  model: string;
  /** The Claude model's facts (thinking mode, limits). */
  profile: AnthropicModelProfile;
  /** The provider's default when the call sets no `cache` option. */
  defaultCache?: CacheOption | undefined;
  /** Claude beta features, sent as `anthropic_beta`. */
  betas?: readonly string[] | undefined;
  /** `responseFormat`, prepared by the shell. */
  format?: PreparedResponseFormat | undefined;
}

/**
 * Builds the InvokeModel / InvokeModelWithResponseStream body of a Claude model: the Messages body of
 * `buildAnthropicRequest` (history replayed to origin `"bedrock"`), without `model` and `stream` (the URL
 * carries both), `anthropic_version` first, `anthropic_beta` for `betas`. `metadata.user_id` is not taken
 * by InvokeModel: left out, with a warning. Images and documents go as their Messages blocks, inline only:
 * InvokeModel fetches no `url` source, so a URL part is refused (download it first: `inlineUrlParts`).
 * Structured output as the Messages builder maps it (`output_config.format` on the models whose profile
 * takes it, else the forced output tool). Pure; never throws.
 */
export function buildBedrockInvokeRequest(
  input: BedrockInvokeRequestInput,
): BuiltRequest<BedrockInvokeRequestBody> {
  const { body, warnings, outputTool, refused } = buildAnthropicRequest({
    messages: input.messages,
    tools: input.tools,
    options: input.options,
    target: { model: input.model, origin: BEDROCK_ORIGIN },
    profile: input.profile,
    stream: false,
    defaultCache: input.defaultCache,
    omitModel: true,
    urlSources: false,
    format: input.format,
  });
  const { metadata, ...rest } = body;
  if (metadata) warnings.push("Bedrock InvokeModel takes no metadata.user_id; left out");
  const wire: BedrockInvokeRequestBody = { anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...rest };
  if (input.betas?.length) wire.anthropic_beta = [...input.betas];
  const built: BuiltRequest<BedrockInvokeRequestBody> = { body: wire, warnings };
  if (outputTool) built.outputTool = outputTool;
  if (refused) built.refused = refused;
  return built;
}
