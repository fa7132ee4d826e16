/**
 * `rateLimitResetMs`, where `retry()` (src/substrate/retry.ts) has always imported it from. The rule lives
 * with the OpenAI error mapping that reads the same headers: src/protocols/openai-chat/rate-limit-reset-ms.ts.
 *
 * @module
 */
export { rateLimitResetMs } from "../protocols/openai-chat/rate-limit-reset-ms.ts";
