/**
 * The prompt-cache cost model: what a call cost ({@link costOf}) and what an edit to the history does to
 * the cache ({@link cacheImpact}) — the trade-off of compaction: a cheaper steady state bought with one
 * expensive call that rewrites the cache.
 *
 * Prices are US dollars per million tokens. Claude models' come from their model profiles (cache reads
 * 0.1× input, 5-minute writes 1.25×, 1-hour writes 2×), Gemini models' from theirs (`geminiModelProfile`:
 * cache reads at Google's rate, no cache writes; 2.5 Pro and 3 Pro at their long-prompt rate for the whole
 * call when its prompt is over 200k tokens). Other models have no built-in prices: pass a
 * {@link ModelPrices} (or a lookup) and the figures are yours. An unknown price gives `undefined`, never a
 * guess.
 *
 * @module
 */
import { type MessageInput, normalizeMessage } from "../core/message.ts";
import { totalInputTokens, type Usage } from "../core/usage.ts";
import { geminiModelProfile } from "../protocols/google-gemini/gemini-model-profile.ts";
import { anthropicModelProfile, type ModelPrices } from "../providers/anthropic-model-profiles.ts";

/**
 * Prices for {@link costOf}: `input` and `output` are required; a cache price left out makes any call
 * that used that kind of cache token cost `undefined` (unknown), not zero.
 */
export interface TokenPrices {
  input: number;
  output: number;
  cacheRead?: number | undefined;
  cacheWrite5m?: number | undefined;
  cacheWrite1h?: number | undefined;
}

/** A model id (priced from the built-in profiles) or prices. */
export type PriceSource = string | TokenPrices;

/** Options of {@link cacheImpact}. */
export interface CacheImpactOptions {
  /** The model (for built-in prices) or its prices; costs are `undefined` without known prices. */
  model?: string | undefined;
  prices?: TokenPrices | undefined;
  /** Token estimate of one message; default: its stable serialisation's length / 4, rounded up. */
  tokensOf?: ((message: MessageInput) => number) | undefined;
  /** TTL the rewritten part is cached with; default `"5m"`. */
  ttl?: "5m" | "1h" | undefined;
}

/** What an edit of the history does to the prompt cache. Costs are input-side only, in US dollars. */
export interface CacheImpact {
  /** First index where the lists differ: messages before it are a cached prefix that survives. */
  divergeAt: number;
  /** Estimated tokens of the surviving prefix (read from cache on the next call). */
  keptTokens: number;
  /** Estimated tokens of the cached history after `divergeAt` that the edit throws away. */
  lostTokens: number;
  /** Estimated tokens of the edited history after `divergeAt` (written to the cache on the next call). */
  rewriteTokens: number;
  /** Estimated tokens of the whole history before and after the edit. */
  beforeTokens: number;
  afterTokens: number;
  /** The next call: the kept prefix read from cache, the rest written to it. */
  nextCallCost: number | undefined;
  /** Every call after that, while the prefix stays cached: all of it read from cache. */
  steadyStateCost: number | undefined;
  /** What each call would have cost without the edit (the whole old history read from cache). */
  unchangedCost: number | undefined;
  /**
   * Calls after the next one until the edit has paid for its rewrite (0: it saves from the start);
   * `undefined` when it never does (the edit does not make calls cheaper) or prices are unknown.
   */
  breakEvenCalls: number | undefined;
}

/**
 * What a call cost, in US dollars: uncached input, output, cache reads, and cache writes (5-minute and
 * 1-hour where the provider says which; a total `cacheWriteTokens` without the split is priced as
 * 5-minute). `undefined` when the price is unknown, when input or output tokens were not reported, or when
 * a cache count is non-zero and its price is missing — never a wrong number.
 *
 * @example
 * ```ts
 * costOf({ inputTokens: 1000, outputTokens: 200, cachedInputTokens: 50_000 }, "claude-sonnet-4-6");
 * // 1000 × 3 + 200 × 15 + 50 000 × 0.3, per million = 0.021
 * costOf(response.usage, { input: 0.4, output: 1.6, cacheRead: 0.1 }); // your own table
 * costOf(usage, "gpt-4.1"); // undefined: no built-in OpenAI prices
 * ```
 */
export function costOf(usage: Usage, source: PriceSource): number | undefined {
  const prices = pricesOf(source, totalInputTokens(usage));
  if (!prices) return undefined;
  const { inputTokens, outputTokens } = usage;
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  const read = usage.cachedInputTokens ?? 0;
  const writes = usage.cacheWriteTokens ?? 0;
  const write1h = usage.cacheWrite1hTokens ?? 0;
  const write5m = usage.cacheWrite5mTokens ?? 0;
  // Writes without a TTL split are priced as 5-minute writes, the default TTL.
  const unsplit = Math.max(0, writes - write1h - write5m);
  const parts: [count: number, price: number | undefined][] = [
    [inputTokens, prices.input],
    [outputTokens, prices.output],
    [read, prices.cacheRead],
    [write5m + unsplit, prices.cacheWrite5m],
    [write1h, prices.cacheWrite1h],
  ];
  let total = 0;
  for (const [count, price] of parts) {
    if (count === 0) continue;
    if (price === undefined || !Number.isFinite(price)) return undefined;
    total += count * price;
  }
  return total / 1_000_000;
}

/**
 * Where an edit of the message list (compaction, a dropped tool result, a rewritten system prompt) breaks
 * the cached prefix, and what that costs: the next call reads the surviving prefix from cache and writes
 * the rest; the calls after it read everything. Compare `nextCallCost` + n × `steadyStateCost` with
 * (n + 1) × `unchangedCost`; `breakEvenCalls` is the smallest n where the edit wins.
 *
 * Messages are compared by a stable serialisation (key order does not matter; defaults are filled). Token
 * counts are estimates unless `tokensOf` counts them.
 *
 * @example
 * ```ts
 * const impact = cacheImpact(history, compacted, { model: "claude-sonnet-4-6" });
 * impact.divergeAt;       // 1: only the system prompt survives
 * impact.nextCallCost;    // the rewrite
 * impact.breakEvenCalls;  // e.g. 2: cheaper from the third call on
 * ```
 */
export function cacheImpact(
  before: readonly MessageInput[],
  after: readonly MessageInput[],
  options: CacheImpactOptions = {},
): CacheImpact {
  const tokensOf = options.tokensOf ?? ((message: MessageInput) => Math.ceil(stableJson(message).length / 4));
  const oldKeys = before.map(stableJson);
  const newKeys = after.map(stableJson);
  let divergeAt = 0;
  while (
    divergeAt < oldKeys.length &&
    divergeAt < newKeys.length &&
    oldKeys[divergeAt] === newKeys[divergeAt]
  )
    divergeAt++;
  const sum = (messages: readonly MessageInput[]) =>
    messages.reduce((total, message) => total + Math.max(0, tokensOf(message)), 0);
  const keptTokens = sum(after.slice(0, divergeAt));
  const lostTokens = sum(before.slice(divergeAt));
  const rewriteTokens = sum(after.slice(divergeAt));
  const beforeTokens = sum(before);
  const afterTokens = keptTokens + rewriteTokens;

  const prices = options.prices ?? (options.model ? pricesOf(options.model) : undefined);
  const write = options.ttl === "1h" ? prices?.cacheWrite1h : prices?.cacheWrite5m;
  const read = prices?.cacheRead;
  const known = read !== undefined && write !== undefined;
  const perToken = (tokens: number, price: number) => (tokens * price) / 1_000_000;
  const nextCallCost = known ? perToken(keptTokens, read) + perToken(rewriteTokens, write) : undefined;
  const steadyStateCost = known ? perToken(afterTokens, read) : undefined;
  const unchangedCost = known ? perToken(beforeTokens, read) : undefined;
  let breakEvenCalls: number | undefined;
  if (nextCallCost !== undefined && steadyStateCost !== undefined && unchangedCost !== undefined) {
    const extra = nextCallCost - unchangedCost;
    const saving = unchangedCost - steadyStateCost;
    if (extra <= 0) breakEvenCalls = 0;
    else if (saving > 0) breakEvenCalls = Math.ceil(extra / saving);
  }
  return {
    divergeAt,
    keptTokens,
    lostTokens,
    rewriteTokens,
    beforeTokens,
    afterTokens,
    nextCallCost,
    steadyStateCost,
    unchangedCost,
    breakEvenCalls,
  };
}

function pricesOf(source: PriceSource, promptTokens?: number): TokenPrices | undefined {
  if (typeof source === "string") return profilePrices(source, promptTokens);
  if (typeof source === "object" && source !== null) return source;
  return undefined;
}

/** A model's built-in prices; for Gemini, the tier the prompt's size falls in (the lower one when unknown). */
function profilePrices(model: string, promptTokens?: number): TokenPrices | undefined {
  const id = model.toLowerCase();
  if (id.includes("claude")) return anthropicModelProfile(model).prices as ModelPrices | undefined;
  if (!id.includes("gemini")) return undefined;
  const prices = geminiModelProfile(model).prices;
  if (!prices) return undefined;
  const tier =
    prices.long && promptTokens !== undefined && promptTokens > prices.long.threshold ? prices.long : prices;
  return { input: tier.input, output: tier.output, cacheRead: tier.cacheRead };
}

/** JSON of the normalised message with object keys sorted: equal messages give equal text. */
function stableJson(message: MessageInput): string {
  return JSON.stringify(sortKeys(normalizeMessage(message)));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== undefined) sorted[key] = sortKeys(field);
  }
  return sorted;
}
