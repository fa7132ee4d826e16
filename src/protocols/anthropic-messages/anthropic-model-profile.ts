/**
 * The shape of what the request builder needs to know about a Claude model. The table of models lives in
 * `src/providers/anthropic-model-profiles.ts` (model facts are the provider layer's business); the
 * protocol only reads a profile it is handed.
 *
 * @module
 */

/** How a model takes thinking configuration. */
export type AnthropicThinkingMode =
  /** `{ type: "adaptive" }` only; `budget_tokens` is rejected (Opus 4.7 and later, the Claude 5 families). */
  | "adaptive-only"
  /** Adaptive, with fixed budgets still accepted (Opus 4.6, Sonnet 4.6). */
  | "adaptive-or-budget"
  /** `{ type: "enabled", budget_tokens }` only (Claude 3.7 through Opus 4.5, Sonnet 4.5, Haiku 4.5). */
  | "budget"
  /** No extended thinking (Claude 3.5 and older). */
  | "none";

/** Per-million-token prices. */
export interface ModelPrices {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
}

/** Facts about one Claude model. */
export interface AnthropicModelProfile {
  /** The family this profile describes, e.g. `"claude-sonnet-4-6"`; `"unknown"` for the default. */
  family: string;
  thinking: AnthropicThinkingMode;
  /** Whether `output_config.effort` is accepted. */
  effort: boolean;
  /**
   * Whether `output_config.format` (native JSON-Schema output) is accepted. Without it structured output
   * goes as a forced tool call.
   */
  structuredOutput: boolean;
  /**
   * Whether the model keeps every prior turn's thinking in context (and bills it as input). Models that
   * do not strip all but the last turn's thinking server-side.
   */
  keepsPriorThinking: boolean;
  maxOutputTokens: number;
  contextWindow: number;
  /** Used when a call sets no `maxTokens`. */
  defaultMaxTokens: number;
  prices: ModelPrices | undefined;
}

/** The API's minimum `budget_tokens`. */
export const MIN_THINKING_BUDGET = 1024;
