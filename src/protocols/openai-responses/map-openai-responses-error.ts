import { mapOpenAIChatError, type OpenAIErrorInfo } from "../openai-chat/map-openai-chat-error.ts";

/**
 * A Responses API HTTP error (status, body, headers) → kind, message, code and wait. The Responses API
 * answers in the OpenAI error envelope (`{ error: { message, type, code } }`, `x-ratelimit-reset-*` on a
 * 429), so the one OpenAI reading decides: `mapOpenAIChatError`. Failures inside a 200 (an `error` event,
 * a `failed` response) are `openAIResponsesFailure`'s.
 *
 * @see https://platform.openai.com/docs/guides/error-codes
 */
export function mapOpenAIResponsesError(status: number, body: unknown, headers?: Headers): OpenAIErrorInfo {
  return mapOpenAIChatError(status, body, headers);
}
