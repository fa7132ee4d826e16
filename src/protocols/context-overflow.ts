/**
 * The one overflow-pattern table: error messages that mean "the prompt is longer than the context window",
 * whichever protocol carried them. Every `map-*-error` reads a `bad_request` through
 * {@link isContextOverflow}, because the same upstream model answers through several protocols (Claude on
 * the first-party API, on Bedrock InvokeModel and on Converse; any model behind an OpenAI-compatible
 * server) and a phrase learnt from one must count for all.
 *
 * @module
 */

/**
 * Phrases, matched case-insensitively anywhere in the message, with who sends them:
 * - `prompt is too long: 210000 tokens > 200000 maximum` — Anthropic (first-party, Bedrock, Vertex);
 * - `Input is too long for requested model.` — Bedrock's own;
 * - `input length and \`max_tokens\` exceed context limit` — Claude through Bedrock;
 * - `This model's maximum context length is 128000 tokens` — OpenAI, vLLM, most OpenAI-compatible servers;
 * - `Your input exceeds the context window`, `context_length_exceeded` in a message — OpenAI Responses;
 * - `Too many input tokens`, `too many tokens` — Bedrock models, gateways;
 * - `input tokens exceed …` — Bedrock models;
 * - `Please reduce the length of the messages` — OpenAI's older wording.
 */
const CONTEXT_OVERFLOW =
  /(?:input|prompt) is too long|too many (?:input )?tokens|context[_ ](?:window|length|limit)|maximum context|input tokens? exceed|reduce the length/i;

/**
 * True when an error message says the prompt does not fit the model's context window. Callers apply it to
 * `bad_request` errors only: a rate limit that speaks of tokens stays a rate limit.
 */
export function isContextOverflow(message: string): boolean {
  return CONTEXT_OVERFLOW.test(message);
}
