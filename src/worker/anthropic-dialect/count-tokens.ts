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

/**
 * Fields of a Messages request that `count_tokens` does not take (the API refuses them there as extra
 * inputs): clients that count the body they are about to send include them.
 */
export const NOT_COUNTED_FIELDS: readonly string[] = [
  "max_tokens",
  "stream",
  "metadata",
  "stop_sequences",
  "temperature",
  "top_p",
  "top_k",
  "service_tier",
  "inference_geo",
];

/**
 * A count_tokens body for an upstream counting API: the client's, without {@link NOT_COUNTED_FIELDS}
 * (the same object when it has none; a warning names those left out, none of which changes the count).
 */
export function countableBody(body: Record<string, unknown>, warnings: string[]): Record<string, unknown> {
  const extra = NOT_COUNTED_FIELDS.filter((field) => Object.hasOwn(body, field));
  if (extra.length === 0) return body;
  warnings.push(`count_tokens takes no ${extra.join(", ")}; left out of the count request`);
  const kept = { ...body };
  for (const field of extra) delete kept[field];
  return kept;
}
