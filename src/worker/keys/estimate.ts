/**
 * What a key's request is estimated at before the upstream call, for its `tpm` and budget: input tokens
 * from the body's text (characters / 4, the rule of thumb of `count_tokens`' estimate — an image or file
 * sent inline counted as {@link INLINE_MEDIA_TOKENS} rather than by the length of its base64), plus its
 * output limit (`max_tokens`, `max_completion_tokens`, `max_output_tokens`, the neutral `options.maxTokens`;
 * {@link DEFAULT_OUTPUT_TOKENS} when it sets none). The estimate is reconciled with the reported usage once
 * the call ends; only the admission uses it.
 *
 * @module
 */
import { costOf, type TokenPrices } from "../../substrate/cost.ts";
import { CHARS_PER_TOKEN } from "../anthropic-dialect/count-tokens.ts";

/** Output tokens assumed for a request that sets no limit. */
export const DEFAULT_OUTPUT_TOKENS = 4096;

/** Tokens counted for one inline image or document (Claude's cost of a ~1.15-megapixel image). */
export const INLINE_MEDIA_TOKENS = 1600;

/** A run of base64 this long is inline media, not text. */
const MEDIA_RUN = /[A-Za-z0-9+/]{1024,}={0,2}/g;

/** The estimate of a request: its input tokens and its output limit. */
export interface RequestEstimate {
  inputTokens: number;
  outputTokens: number;
}

/** The estimate of a request body (`text` as sent, `value` as parsed). */
export function estimateRequest(text: string, value: unknown): RequestEstimate {
  let media = 0;
  let mediaChars = 0;
  for (const match of text.matchAll(MEDIA_RUN)) {
    media++;
    mediaChars += match[0].length;
  }
  const inputTokens = Math.ceil((text.length - mediaChars) / CHARS_PER_TOKEN) + media * INLINE_MEDIA_TOKENS;
  return { inputTokens, outputTokens: outputLimitOf(value) ?? DEFAULT_OUTPUT_TOKENS };
}

/**
 * The output limit a body sets, in any of the gateway's dialects: the largest of those it gives (Chat
 * Completions takes `max_completion_tokens` over `max_tokens`; the largest is never an underestimate).
 */
function outputLimitOf(value: unknown): number | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const body = value as Record<string, unknown>;
  const options = body.options as Record<string, unknown> | undefined;
  let largest: number | undefined;
  for (const limit of [
    body.max_tokens,
    body.max_completion_tokens,
    body.max_output_tokens,
    typeof options === "object" && options !== null ? options.maxTokens : undefined,
  ]) {
    if (typeof limit === "number" && Number.isInteger(limit) && limit > 0)
      largest = Math.max(largest ?? 0, limit);
  }
  return largest;
}

/**
 * The cost of `estimate` on `model`: its built-in price, else `prices` (the config's); undefined when
 * neither knows the model.
 */
export function estimatedCost(
  estimate: RequestEstimate,
  model: string,
  prices: ReadonlyMap<string, TokenPrices>,
): number | undefined {
  const usage = { inputTokens: estimate.inputTokens, outputTokens: estimate.outputTokens };
  return priced(usage, model, prices);
}

/**
 * What `usage` on `model` cost: by the config's prices, else the built-in ones; undefined when neither
 * knows the model. A cache price the config leaves out is the input price (cache tokens are never free).
 */
export function priced(
  usage: Parameters<typeof costOf>[0],
  model: string,
  prices: ReadonlyMap<string, TokenPrices>,
): number | undefined {
  const table = prices.get(model);
  if (!table) return costOf(usage, model);
  return costOf(usage, {
    ...table,
    cacheRead: table.cacheRead ?? table.input,
    cacheWrite5m: table.cacheWrite5m ?? table.input,
    cacheWrite1h: table.cacheWrite1h ?? table.input,
  });
}
