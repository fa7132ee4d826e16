/**
 * The built-in protocols of `createProvider()`, registered exactly as an outside one is: one
 * `ProviderFactory` each, by name.
 *
 * @module
 */
import type { BuiltInProtocol, ProviderFactory } from "../provider-factory.ts";
import { anthropicFactory } from "./anthropic-factory.ts";
import { bedrockFactory } from "./bedrock-factory.ts";
import { geminiFactory } from "./gemini-factory.ts";
import { openAIChatFactory } from "./openai-chat-factory.ts";
import { openAIResponsesFactory } from "./openai-responses-factory.ts";
import { vertexFactory } from "./vertex-factory.ts";

/** The built-in factories, in the order error messages list them. */
export const BUILT_IN_FACTORIES: Readonly<Record<BuiltInProtocol, ProviderFactory>> = {
  anthropic: anthropicFactory,
  "openai-chat": openAIChatFactory,
  "openai-responses": openAIResponsesFactory,
  bedrock: bedrockFactory,
  "google-gemini": geminiFactory,
  vertex: vertexFactory,
};
