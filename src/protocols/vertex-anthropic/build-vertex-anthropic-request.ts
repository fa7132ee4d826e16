import type { CacheOption, CallOptions } from "../../core/call-options.ts";
import type { MessageInput } from "../../core/message.ts";
import type { PreparedResponseFormat } from "../../core/structured-output.ts";
import type { ToolSpec } from "../../core/tool-spec.ts";
import type { AnthropicModelProfile } from "../anthropic-messages/anthropic-model-profile.ts";
import { buildAnthropicRequest } from "../anthropic-messages/build-anthropic-request.ts";
import type { BuiltRequest } from "../protocol.ts";
import {
  VERTEX_ANTHROPIC_VERSION,
  VERTEX_ORIGIN,
  type VertexAnthropicRequestBody,
} from "./vertex-anthropic-wire.ts";

/** Everything a rawPredict request for a Claude model on Vertex is built from. */
export interface VertexAnthropicRequestInput {
  messages: readonly MessageInput[] | readonly unknown[];
  tools: readonly ToolSpec[];
  options: CallOptions;
  /** The Vertex model id (`claude-sonnet-4-5@20250929`); `native` blocks replay only to it (origin `"vertex"`). */
  model: string;
  /** The Claude model's facts (thinking mode, limits). */
  profile: AnthropicModelProfile;
  stream: boolean;
  /** The provider's default when the call sets no `cache` option. */
  defaultCache?: CacheOption | undefined;
  /** `responseFormat`, prepared by the shell. */
  format?: PreparedResponseFormat | undefined;
}

/**
 * Builds the rawPredict / streamRawPredict body of a Claude model on Vertex: the Messages body of
 * `buildAnthropicRequest` (history replayed to origin `"vertex"`, so signed thinking goes back only to the
 * Vertex model that made it), without `model` (the URL names it), `anthropic_version:
 * "vertex-2023-10-16"` first, `stream: true` for a stream. Images and documents go inline only: Vertex
 * fetches no `url` source, so a URL part is refused (download it first: `inlineUrlParts`). Pure; never
 * throws.
 */
export function buildVertexAnthropicRequest(
  input: VertexAnthropicRequestInput,
): BuiltRequest<VertexAnthropicRequestBody> {
  const { body, warnings, outputTool, refused } = buildAnthropicRequest({
    messages: input.messages,
    tools: input.tools,
    options: input.options,
    target: { model: input.model, origin: VERTEX_ORIGIN },
    profile: input.profile,
    stream: input.stream,
    defaultCache: input.defaultCache,
    omitModel: true,
    urlSources: false,
    format: input.format,
  });
  const { model: _model, ...rest } = body;
  const built: BuiltRequest<VertexAnthropicRequestBody> = {
    body: { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...rest },
    warnings,
  };
  if (outputTool) built.outputTool = outputTool;
  if (refused) built.refused = refused;
  return built;
}
