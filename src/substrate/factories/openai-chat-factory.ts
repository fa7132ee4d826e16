/**
 * `openAIChatFactory`: how a config with `protocol: "openai-chat"` (the default) becomes an `openaiChat()`
 * provider — hosted OpenAI or an OpenAI-compatible server.
 *
 * @module
 */
import * as z from "zod/mini";
import { TEXT_TOOL_CALL_FORMATS, type TextToolCallFormat } from "../../protocols/text-tool-calls/index.ts";
import { openaiChat } from "../../providers/openai-chat.ts";
import type { ProviderFactory } from "../provider-factory.ts";
import { defined } from "./defined.ts";
import { OPENAI_ACCOUNT_FIELDS } from "./openai-account-fields.ts";

/** The fields only an `openai-chat` config takes. */
const OPENAI_CHAT_FIELDS = {
  /** The server kind (`"openai"`, `"vllm"`, `"ollama"`, `"generic"`) or a profile overriding one. */
  endpoint: z.optional(
    z.union([
      z.enum(["openai", "vllm", "ollama", "generic"]),
      z.strictObject({
        kind: z.string().check(z.minLength(1)),
        baseURL: z.optional(z.string()),
        maxTokensField: z.optional(z.enum(["max_completion_tokens", "max_tokens"])),
        streamUsage: z.optional(z.boolean()),
        reasoningEffort: z.optional(z.boolean()),
        parallelToolCalls: z.optional(z.boolean()),
        textToolCalls: z.optional(
          z.enum(TEXT_TOOL_CALL_FORMATS as [TextToolCallFormat, ...TextToolCallFormat[]]),
        ),
        echoReasoning: z.optional(z.boolean()),
        openaiModelRules: z.optional(z.boolean()),
      }),
    ]),
  ),
  ...OPENAI_ACCOUNT_FIELDS,
};

/** The built-in `openai-chat` protocol. */
export const openAIChatFactory: ProviderFactory<typeof OPENAI_CHAT_FIELDS> = {
  schema: OPENAI_CHAT_FIELDS,
  build: (config, context) =>
    openaiChat({
      model: config.model,
      ...defined({
        apiKey: config.apiKey,
        baseURL: config.baseURL,
        headers: config.headers,
        fetch: context.fetch,
        timeouts: config.timeouts,
        endpoint: config.endpoint,
        organization: config.organization,
        project: config.project,
        affinity: context.affinity,
      }),
    }),
};
