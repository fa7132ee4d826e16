/**
 * `POST /v1/messages/count_tokens` where the route's upstream has no counting API: an estimate, marked as
 * one in the {@link TOKEN_COUNT_HEADER} response header (`estimate`; a count the upstream made is
 * `upstream`).
 *
 * The estimate is the characters of the JSON of `system`, `messages` and `tools` divided by four, rounded
 * up — the usual rule of thumb for English text and code under the tokenizers of today's models. It is
 * meant for what clients such as Claude Code do with the count (deciding when to compact a conversation),
 * not for billing.
 *
 * @module
 */

/** The response header saying where the count came from: `upstream` or `estimate`. */
export const TOKEN_COUNT_HEADER = "x-modelwire-token-count";

/** Characters per token of the estimate. */
export const CHARS_PER_TOKEN = 4;

/** The estimated input tokens of a count_tokens body (see the module comment). */
export function estimateInputTokens(body: Record<string, unknown>): number {
  const counted = { system: body.system ?? null, messages: body.messages ?? [], tools: body.tools ?? [] };
  return Math.ceil(JSON.stringify(counted).length / CHARS_PER_TOKEN);
}
