/**
 * Bedrock InvokeModel with an Anthropic model on the wire: the Anthropic Messages body in Bedrock's
 * envelope. The response and the events inside the stream's `chunk` frames are Anthropic's own
 * (`anthropic-wire.ts`); the stream's framing is the AWS event stream, its errors Bedrock's exceptions.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html
 * @module
 */
import type { AnthropicRequestBody } from "../anthropic-messages/anthropic-wire.ts";

/** `anthropic_version` of the InvokeModel body for Claude. */
export const BEDROCK_ANTHROPIC_VERSION = "bedrock-2023-05-31";

/**
 * The InvokeModel body: the Messages body without `model` (the URL names it), `stream` (the URL says it)
 * and `metadata` (not taken), with `anthropic_version` and, for beta features, `anthropic_beta`.
 */
export interface BedrockInvokeRequestBody
  extends Omit<AnthropicRequestBody, "model" | "stream" | "metadata"> {
  anthropic_version: string;
  anthropic_beta?: string[];
}
