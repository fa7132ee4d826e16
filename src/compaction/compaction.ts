/**
 * `compaction()`: the policy `runAgent({ compaction })` runs before every model call. When the next
 * request would be over a threshold of the model's context — or when replacing older turns is modelled to
 * cost less over the next K calls, prompt-cache re-write included (`cacheImpact`) — the turns between the
 * system prompt and the last N are replaced by one `synthetic` summary written by a provider of your
 * choice. Tool calls are never cut from their results; the last assistant turn stays verbatim, its
 * `native` reasoning blocks with it.
 *
 * The `"provider"` strategy leaves the history alone: the provider compacts server-side (Anthropic's
 * `context_management`, set on `anthropic({ contextManagement })`), its `compaction` blocks stay in the
 * assistant turn's `native` blocks and are replayed byte for byte; each one is reported.
 *
 * @module
 */

import type { AgentCompaction, CompactionReport } from "../agent/run-agent.ts";
import { type Content, contentText } from "../core/content.ts";
import type { MessageInput } from "../core/message.ts";
import type { Provider } from "../core/provider.ts";
import { normalizeToolSpecs, type ToolSpecInput } from "../core/tool-spec.ts";
import { totalInputTokens, type Usage } from "../core/usage.ts";
import { ValidationError } from "../core/validation-error.ts";
import { buildAnthropicRequest } from "../protocols/anthropic-messages/build-anthropic-request.ts";
import { anthropicModelProfile } from "../providers/anthropic-model-profiles.ts";
import { nativeEndpointOf } from "../providers/native.ts";
import { cacheImpact, costOf, type PriceSource, type TokenPrices } from "../substrate/cost.ts";

/** Settings of {@link compaction}. */
export interface CompactionOptions {
  /**
   * `"summary"` (default): the harness summarises older turns. `"provider"`: the provider compacts
   * server-side (configure it there, e.g. `anthropic({ contextManagement })`); this only reports it.
   */
  strategy?: "summary" | "provider";
  /**
   * When to compact: a fraction of the context window (0 < t ≤ 1) or a token count (> 1). Default 0.8.
   */
  threshold?: number;
  /** The model's context window in tokens; default: the built-in profile's (Claude models). */
  contextWindow?: number;
  /** Trailing turns kept verbatim (a turn: an assistant message with its tool results, or a user message). Default 4. */
  keepTurns?: number;
  /** Writes the summary; default: the agent's own provider. Often a cheaper model. */
  summarizer?: Provider;
  /** The summarizer's system prompt. */
  instructions?: string;
  /** `maxTokens` of the summary call (default 2048); also the summary size the cost model assumes. */
  summaryMaxTokens?: number;
  /**
   * Counts a request's input tokens. Default: the provider's counting API where it has one (Anthropic's
   * `count_tokens`), else the estimate; the report's `counted` says which.
   */
  countTokens?: (
    messages: readonly MessageInput[],
    tools: readonly ToolSpecInput[],
  ) => number | Promise<number>;
  /** Token estimate of one message for the cost model; default: its JSON's length / 4, rounded up. */
  tokensOf?: (message: MessageInput) => number;
  /** The agent model's prices (a model id or a table); default: the provider's model's built-in prices. */
  prices?: PriceSource;
  /** The summarizer's prices; default: its model's built-in prices. */
  summarizerPrices?: PriceSource;
  /** Calls the two paths are compared over (the next K, the one after the compaction included). Default 5. */
  horizon?: number;
  /** Cache TTL the rewritten part is written with; default `"5m"`. */
  ttl?: "5m" | "1h";
  /** Compact below the threshold when it is modelled to be cheaper (needs known prices). Default true. */
  costAware?: boolean;
  /** Most characters of the transcript sent to the summarizer (default 400 000); the rest is cut, and says so. */
  maxTranscriptChars?: number;
}

const DEFAULT_INSTRUCTIONS =
  "You compact the history of an agent's conversation. Write a summary the agent can continue from: the " +
  "task, decisions made, facts found (names, numbers, file paths, ids), tool results that still matter, " +
  "and what remains to do. Be complete and concise; no preamble.";
/** The first line of every summary message. */
const SUMMARY_HEADER = "[Summary of the earlier conversation, written by the harness]";
const MAX_ITEM_CHARS = 8_000;

/**
 * A compaction policy for `runAgent`.
 *
 * @example
 * ```ts
 * const result = await runAgent({
 *   provider: claude,
 *   messages,
 *   tools,
 *   compaction: compaction({ threshold: 0.7, keepTurns: 4, summarizer: haiku }),
 *   onEvent: (event) => {
 *     if (event.type === "compaction") console.log(event.report.tokensReclaimed, event.report.cacheRewriteCost);
 *   },
 * });
 * ```
 */
export function compaction(options: CompactionOptions = {}): AgentCompaction {
  const threshold = options.threshold ?? 0.8;
  const keepTurns = options.keepTurns ?? 4;
  const horizon = options.horizon ?? 5;
  const summaryMaxTokens = options.summaryMaxTokens ?? 2048;
  const maxTranscriptChars = options.maxTranscriptChars ?? 400_000;
  const issues: { path: string; message: string }[] = [];
  if (!(Number.isFinite(threshold) && threshold > 0))
    issues.push({
      path: "threshold",
      message: "a fraction of the context (0 < t ≤ 1) or a token count (> 1)",
    });
  if (!(Number.isInteger(keepTurns) && keepTurns >= 1))
    issues.push({ path: "keepTurns", message: "an integer of at least 1" });
  if (!(Number.isInteger(horizon) && horizon >= 1))
    issues.push({ path: "horizon", message: "an integer of at least 1" });
  if (!(Number.isInteger(summaryMaxTokens) && summaryMaxTokens >= 1))
    issues.push({ path: "summaryMaxTokens", message: "an integer of at least 1" });
  if (
    options.contextWindow !== undefined &&
    !(Number.isInteger(options.contextWindow) && options.contextWindow > 0)
  )
    issues.push({ path: "contextWindow", message: "a positive integer" });
  if (options.strategy !== undefined && options.strategy !== "summary" && options.strategy !== "provider")
    issues.push({ path: "strategy", message: '"summary" or "provider"' });
  if (issues.length > 0) throw new ValidationError(issues);

  const tokensOf = options.tokensOf ?? estimateTokens;
  const limitOf = (provider: Provider): number => {
    if (threshold > 1) return Math.floor(threshold);
    const window = options.contextWindow ?? builtInContextWindow(provider.model);
    if (window === undefined)
      throw new ValidationError([
        {
          path: "contextWindow",
          message: `required: a fractional threshold needs the context window of "${provider.model}" (no built-in one)`,
        },
      ]);
    return Math.floor(threshold * window);
  };
  const count = async (
    messages: readonly MessageInput[],
    tools: readonly ToolSpecInput[],
    provider: Provider,
    signal: AbortSignal | undefined,
  ): Promise<{ tokens: number; counted: CompactionReport["counted"] }> => {
    if (options.countTokens) return { tokens: await options.countTokens(messages, tools), counted: "custom" };
    const native = nativeEndpointOf(provider, "anthropic-messages");
    if (native?.countTokens) {
      try {
        const built = buildAnthropicRequest({
          messages,
          tools: normalizeToolSpecs(tools),
          options: {},
          target: { model: provider.model, origin: native.origin },
          profile: anthropicModelProfile(provider.model),
          stream: false,
        }).body;
        const body: Record<string, unknown> = { messages: built.messages };
        if (built.system) body.system = built.system;
        if (built.tools) body.tools = built.tools;
        return { tokens: await native.countTokens({ body, signal }), counted: "provider" };
      } catch (error) {
        if (signal?.aborted) throw error;
        // The count is advice: a failed count falls back to the estimate, and the report says so.
      }
    }
    // The tools' schemas are part of every request (an MCP server's can be large).
    return { tokens: sumTokens(messages, estimateTokens) + toolTokens(tools), counted: "estimate" };
  };

  if (options.strategy === "provider") {
    // Each request's count, by the history it was made for: one policy may serve several runs at once.
    const counts = new WeakMap<object, { tokens: number; counted: CompactionReport["counted"] }>();
    return {
      async prepare({ messages, tools }) {
        const tokens = options.countTokens
          ? await options.countTokens(messages, tools)
          : sumTokens(messages, tokensOf) + toolTokens(tools);
        counts.set(messages, { tokens, counted: options.countTokens ? "custom" : "estimate" });
        return undefined;
      },
      observe(response, sent) {
        const before = sent ? counts.get(sent) : undefined;
        const blocks = response.message.native?.blocks ?? [];
        if (!blocks.some((block) => (block as { type?: unknown } | null)?.type === "compaction"))
          return undefined;
        // The usage counts the compaction step too (it is billed): what the compacted request itself
        // took in is the rest, with the step's input taken as the request's count before.
        const total = totalInputTokens(response.usage) ?? 0;
        const after = before && total > before.tokens ? total - before.tokens : total;
        const prices = resolvePrices(options.prices ?? response.model);
        const tokensBefore = before?.tokens ?? after;
        const write = options.ttl === "1h" ? prices?.cacheWrite1h : prices?.cacheWrite5m;
        const read = prices?.cacheRead;
        const perToken = (tokens: number, price: number | undefined) =>
          price === undefined ? undefined : (tokens * price) / 1_000_000;
        const rewrite = perToken(after, write);
        const steady = perToken(after, read);
        const unchanged = perToken(tokensBefore, read);
        return {
          strategy: "provider",
          reason: "provider",
          counted: before?.counted ?? "estimate",
          limit: threshold > 1 ? Math.floor(threshold) : 0,
          tokensBefore,
          tokensAfter: after,
          tokensReclaimed: Math.max(0, tokensBefore - after),
          messagesReplaced: 0,
          divergeAt: 0,
          rewriteTokens: after,
          cacheRewriteCost: rewrite,
          nextCallCost: rewrite,
          steadyStateCost: steady,
          unchangedCost: unchanged,
          breakEvenCalls: undefined,
          horizon,
          costIfCompacted:
            rewrite !== undefined && steady !== undefined ? rewrite + (horizon - 1) * steady : undefined,
          costIfKept: unchanged !== undefined ? horizon * unchanged : undefined,
          summaryCost: undefined,
          summaryUsage: {},
        };
      },
    };
  }

  return {
    async prepare({ messages, tools, provider, signal }) {
      const limit = limitOf(provider);
      const before = await count(messages, tools, provider, signal);
      const fit = before.tokens > limit;
      if (!fit && options.costAware === false) return undefined;
      // What the summarizer is shown is bounded: the replaced turns are only as many as their transcript
      // holds (a turn it could not show is kept verbatim, never dropped unseen).
      const lines = messages.map((message) => transcriptLine(message).length + 2);
      const split = splitHistory(messages, keepTurns, (from, to) => {
        let length = 0;
        for (let index = from; index < to; index++) length += lines[index]!;
        return length <= maxTranscriptChars;
      });
      if (!split) return undefined;
      const { head, replaced, kept } = split;
      const summarizer = options.summarizer ?? provider;
      const agentPrices = resolvePrices(options.prices ?? provider.model);
      const summaryPrices = resolvePrices(options.summarizerPrices ?? summarizer.model);
      const impactOptions = { prices: agentPrices, tokensOf, ttl: options.ttl };

      let reason: CompactionReport["reason"] = "fit";
      if (!fit) {
        // Modelled before the summary exists: a summary of `summaryMaxTokens` tokens stands in for it.
        const placeholder: MessageInput = { role: "user", content: "", synthetic: true };
        const planned = cacheImpact(messages.map(listed), [...head, placeholder, ...kept].map(listed), {
          ...impactOptions,
          tokensOf: (message) => (message === placeholder ? summaryMaxTokens : tokensOf(message)),
        });
        const summaryEstimate = summaryPrices
          ? costOf(
              { inputTokens: sumTokens(replaced, tokensOf), outputTokens: summaryMaxTokens },
              summaryPrices,
            )
          : undefined;
        const compacted = pathCost(summaryEstimate, planned.nextCallCost, planned.steadyStateCost, horizon);
        const keptCost = planned.unchangedCost === undefined ? undefined : horizon * planned.unchangedCost;
        if (compacted === undefined || keptCost === undefined || !(compacted < keptCost)) return undefined;
        reason = "cost";
      }

      const answer = await summarizer.complete(
        [
          { role: "system", content: options.instructions ?? DEFAULT_INSTRUCTIONS },
          { role: "user", content: transcriptOf(replaced) },
        ],
        [],
        { maxTokens: summaryMaxTokens, ...(signal ? { signal } : {}) },
      );
      const text = contentText(answer.message.content).trim();
      if (text === "")
        throw new Error(
          `compaction: the summarizer (${summarizer.name} ${summarizer.model}) returned no text`,
        );
      const summary: MessageInput = {
        role: "user",
        content: `${SUMMARY_HEADER}\n\n${text}`,
        synthetic: true,
      };
      const compactedMessages = [...head, summary, ...kept];
      const impact = cacheImpact(messages.map(listed), compactedMessages.map(listed), impactOptions);
      const after =
        before.counted === "estimate"
          ? { tokens: sumTokens(compactedMessages, estimateTokens) }
          : await count(compactedMessages, tools, provider, signal);
      const summaryCost = costOf(answer.usage, options.summarizerPrices ?? summarizer.model);
      const write = options.ttl === "1h" ? agentPrices?.cacheWrite1h : agentPrices?.cacheWrite5m;
      const report: CompactionReport = {
        strategy: "summary",
        reason,
        counted: before.counted,
        limit,
        tokensBefore: before.tokens,
        tokensAfter: after.tokens,
        tokensReclaimed: before.tokens - after.tokens,
        messagesReplaced: replaced.length,
        divergeAt: impact.divergeAt,
        rewriteTokens: impact.rewriteTokens,
        cacheRewriteCost: write === undefined ? undefined : (impact.rewriteTokens * write) / 1_000_000,
        nextCallCost: impact.nextCallCost,
        steadyStateCost: impact.steadyStateCost,
        unchangedCost: impact.unchangedCost,
        breakEvenCalls: impact.breakEvenCalls,
        horizon,
        costIfCompacted: pathCost(summaryCost, impact.nextCallCost, impact.steadyStateCost, horizon),
        costIfKept: impact.unchangedCost === undefined ? undefined : horizon * impact.unchangedCost,
        summaryCost,
        summaryUsage: answer.usage,
      };
      return { messages: compactedMessages, report };
    },
  };
}

/** The summary call, the next call, then K − 1 calls at the steady state. */
function pathCost(
  summary: number | undefined,
  next: number | undefined,
  steady: number | undefined,
  horizon: number,
): number | undefined {
  if (summary === undefined || next === undefined || steady === undefined) return undefined;
  return summary + next + (horizon - 1) * steady;
}

/**
 * The history cut in three: the leading system messages, the turns to replace, the trailing turns kept.
 * A turn starts at an assistant message or a user message that carries no tool results; tool results
 * belong to the turn before them. The cut moves earlier until no tool call before it has its result after
 * it, and so that the last assistant turn is kept. Undefined when nothing is left to replace.
 */
function splitHistory(
  messages: readonly MessageInput[],
  keepTurns: number,
  /** Whether the messages in `[from, to)` may be replaced (their transcript fits). */
  fits: (from: number, to: number) => boolean,
): { head: MessageInput[]; replaced: MessageInput[]; kept: MessageInput[] } | undefined {
  let headEnd = 0;
  while (headEnd < messages.length && messages[headEnd]!.role === "system") headEnd++;
  const starts: number[] = [];
  for (let index = headEnd; index < messages.length; index++) {
    const message = messages[index]!;
    if (message.role === "tool" || (message.role === "user" && listOf(message.toolResults).length > 0))
      continue;
    starts.push(index);
  }
  if (starts.length === 0) return undefined;
  let turn = Math.max(0, starts.length - keepTurns);
  const lastAssistant = messages.findLastIndex((message) => message.role === "assistant");
  // The last assistant turn stays verbatim (its native reasoning with it).
  while (turn > 0 && starts[turn]! > lastAssistant && lastAssistant >= headEnd) turn--;
  for (;;) {
    // No tool call may be cut from its result: move the cut before any call answered after it.
    for (let moved = true; moved && turn > 0; ) {
      moved = false;
      const cut = starts[turn]!;
      const answeredLater = new Set(
        messages.slice(cut).flatMap((message) => listOf(message.toolResults).map((result) => result?.callId)),
      );
      for (let index = cut - 1; index >= headEnd; index--) {
        if (!listOf(messages[index]!.toolCalls).some((call) => answeredLater.has(call?.id))) continue;
        while (turn > 0 && starts[turn]! > index) turn--;
        moved = true;
        break;
      }
    }
    if (starts[turn]! <= headEnd) return undefined;
    if (fits(headEnd, starts[turn]!)) break;
    turn--;
  }
  const cut = starts[turn]!;
  // A system message among the replaced turns is kept (with the leading ones): it is instructions, not
  // conversation.
  const between = messages.slice(headEnd, cut);
  return {
    head: [...messages.slice(0, headEnd), ...between.filter((message) => message.role === "system")],
    replaced: between.filter((message) => message.role !== "system"),
    kept: messages.slice(cut),
  };
}

/** One message of the summarizer's transcript: its role and text, each item clipped. */
function transcriptLine(message: MessageInput): string {
  const clip = (text: string) =>
    text.length > MAX_ITEM_CHARS
      ? `${text.slice(0, MAX_ITEM_CHARS)} […${text.length - MAX_ITEM_CHARS} characters cut]`
      : text;
  const parts: string[] = [];
  const text = textOf(message.content);
  if (text !== "") parts.push(clip(text));
  for (const call of listOf(message.toolCalls))
    parts.push(clip(`[tool call ${call?.name} ${JSON.stringify(call?.arguments ?? {})}]`));
  for (const result of listOf(message.toolResults))
    parts.push(
      clip(
        `[tool result${result?.name ? ` ${result.name}` : ""}${result?.isError ? " (error)" : ""}] ${textOf(result?.content)}`,
      ),
    );
  return `${message.synthetic ? "summary" : message.role}: ${parts.join("\n")}`;
}

/** The replaced turns as plain text for the summarizer (`splitHistory` replaced no more than it holds). */
function transcriptOf(messages: readonly MessageInput[]): string {
  return messages.map(transcriptLine).join("\n\n");
}

/** The estimated tokens of the tools' definitions. */
function toolTokens(tools: readonly ToolSpecInput[]): number {
  return tools.length === 0 ? 0 : Math.ceil(JSON.stringify(tools).length / 4);
}

/** `message` with list fields that are lists of objects (itself when they are): what `cacheImpact` reads. */
function listed(message: MessageInput): MessageInput {
  const clean = (value: unknown) =>
    value === undefined ||
    (Array.isArray(value) && value.every((item) => typeof item === "object" && item !== null));
  if (clean(message.toolCalls) && clean(message.toolResults)) return message;
  const objects = <T>(value: readonly T[] | undefined) =>
    listOf(value).filter((item) => typeof item === "object" && item !== null);
  return { ...message, toolCalls: objects(message.toolCalls), toolResults: objects(message.toolResults) };
}

/** A stored history is read without trusting it: a list field that is not a list is empty. */
function listOf<T>(value: readonly T[] | undefined): readonly T[] {
  return Array.isArray(value) ? value : [];
}

function textOf(content: Content | undefined): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content))
    return content === undefined || content === null ? "" : JSON.stringify(content);
  return content.map((part) => (part?.type === "text" ? String(part.text) : `[${part?.type}]`)).join("");
}

function estimateTokens(message: MessageInput): number {
  return Math.ceil(JSON.stringify(message).length / 4);
}

function sumTokens(messages: readonly MessageInput[], tokensOf: (message: MessageInput) => number): number {
  return messages.reduce((total, message) => total + Math.max(0, tokensOf(message)), 0);
}

function builtInContextWindow(model: string): number | undefined {
  return model.toLowerCase().includes("claude") ? anthropicModelProfile(model).contextWindow : undefined;
}

/** Each price of a source, read back through `costOf` (a million tokens of one kind). */
function resolvePrices(source: PriceSource | undefined): TokenPrices | undefined {
  if (source === undefined) return undefined;
  if (typeof source === "object") return source;
  const price = (usage: Usage) => costOf({ inputTokens: 0, outputTokens: 0, ...usage }, source);
  const input = costOf({ inputTokens: 1_000_000, outputTokens: 0 }, source);
  const output = costOf({ inputTokens: 0, outputTokens: 1_000_000 }, source);
  if (input === undefined || output === undefined) return undefined;
  return {
    input,
    output,
    cacheRead: price({ cachedInputTokens: 1_000_000 }),
    cacheWrite5m: price({ cacheWriteTokens: 1_000_000 }),
    cacheWrite1h: price({ cacheWriteTokens: 1_000_000, cacheWrite1hTokens: 1_000_000 }),
  };
}
