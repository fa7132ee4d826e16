/**
 * What the request builder and the cost table need to know about a Gemini model: how it takes thinking
 * (a token budget on 2.5, a level on 3.x, nothing on 2.0 and older), what it accepts there, whether its
 * function calls must carry thought signatures, and its prices. Behaviour diverges per model, not per
 * endpoint: the same table serves the Gemini API and Vertex AI.
 *
 * Sources (late 2026): ai.google.dev/gemini-api/docs/thinking (budgets per model: 2.5 Pro 128–32768 and
 * cannot be turned off; 2.5 Flash 0–24576; 2.5 Flash-Lite 512–24576; Gemini 3 Pro LOW/HIGH, 3 Flash
 * MINIMAL/LOW/MEDIUM/HIGH, neither turned off), …/thought-signatures, …/pricing (paid tier, US dollars
 * per million tokens; 2.5 Pro and 3 Pro charge more for the whole call when the prompt is over 200k tokens).
 *
 * @module
 */

/** How a model takes `thinkingConfig`. */
export type GeminiThinkingMode =
  /** `thinkingBudget` (2.5). */
  | "budget"
  /** `thinkingLevel` (3.x). */
  | "level"
  /** No thinking (2.0, 1.5). */
  | "none";

/** A thinking level, as the API spells it. */
export type GeminiThinkingLevel = "MINIMAL" | "LOW" | "MEDIUM" | "HIGH";

/** Per-million-token prices; `long` applies to the whole call when the prompt exceeds `threshold` tokens. */
export interface GeminiPrices {
  input: number;
  output: number;
  cacheRead: number;
  long?: { threshold: number; input: number; output: number; cacheRead: number };
}

/** Facts about one Gemini model. */
export interface GeminiModelProfile {
  /** The family this profile describes (`"gemini-2.5-pro"`), `"unknown"` for the default. */
  family: string;
  thinking: GeminiThinkingMode;
  /** Budget models: the smallest and largest budget taken when thinking is on. */
  minBudget: number;
  maxBudget: number;
  /** Whether thinking can be turned off (`thinkingBudget: 0`). */
  canDisable: boolean;
  /** Level models: the levels taken. */
  levels: readonly GeminiThinkingLevel[];
  /**
   * Whether the first function call of each step must carry a thought signature (Gemini 3): a rebuilt
   * call gets `SKIP_THOUGHT_SIGNATURE` instead of a 400.
   */
  requiresSignatures: boolean;
  /** Whether a function response may carry media parts (`functionResponse.parts`, Gemini 3). */
  mediaInResults: boolean;
  /** Whether structured output (`responseJsonSchema`) may be combined with function calling (Gemini 3). */
  schemaWithTools: boolean;
  prices: GeminiPrices | undefined;
}

const ALL_LEVELS: readonly GeminiThinkingLevel[] = ["MINIMAL", "LOW", "MEDIUM", "HIGH"];

type Row = readonly [
  family: string,
  thinking: GeminiThinkingMode,
  minBudget: number,
  maxBudget: number,
  canDisable: boolean,
  levels: readonly GeminiThinkingLevel[],
  prices: GeminiPrices | undefined,
];

const LONG = 200_000;

/** Most specific first; a family matches an id that contains it followed by nothing or a version suffix. */
const ROWS: readonly Row[] = [
  [
    "gemini-3-pro",
    "level",
    0,
    0,
    false,
    ["LOW", "HIGH"],
    { input: 2, output: 12, cacheRead: 0.2, long: { threshold: LONG, input: 4, output: 18, cacheRead: 0.4 } },
  ],
  ["gemini-3.1-pro", "level", 0, 0, false, ["LOW", "MEDIUM", "HIGH"], undefined],
  ["gemini-3-flash", "level", 0, 0, false, ALL_LEVELS, { input: 0.5, output: 3, cacheRead: 0.05 }],
  ["gemini-3.1-flash-lite", "level", 0, 0, false, ALL_LEVELS, undefined],
  // Google's moving aliases, on Gemini 3 models since 2026 (gemini-pro-latest → 3.1 Pro from 2026-03-06,
  // gemini-flash-latest → 3.5 Flash): levels and signatures, no prices (the target changes).
  ["gemini-pro-latest", "level", 0, 0, false, ["LOW", "MEDIUM", "HIGH"], undefined],
  ["gemini-flash-lite-latest", "level", 0, 0, false, ALL_LEVELS, undefined],
  ["gemini-flash-latest", "level", 0, 0, false, ALL_LEVELS, undefined],
  [
    "gemini-2.5-pro",
    "budget",
    128,
    32_768,
    false,
    [],
    {
      input: 1.25,
      output: 10,
      cacheRead: 0.125,
      long: { threshold: LONG, input: 2.5, output: 15, cacheRead: 0.25 },
    },
  ],
  ["gemini-2.5-flash-lite", "budget", 512, 24_576, true, [], { input: 0.1, output: 0.4, cacheRead: 0.01 }],
  ["gemini-2.5-flash", "budget", 1, 24_576, true, [], { input: 0.3, output: 2.5, cacheRead: 0.03 }],
  ["gemini-2.0-flash-lite", "none", 0, 0, false, [], undefined],
  ["gemini-2.0-flash", "none", 0, 0, false, [], { input: 0.1, output: 0.4, cacheRead: 0.025 }],
  ["gemini-1.5", "none", 0, 0, false, [], undefined],
];

/** After a family name: the end, a preview/experimental/dated suffix, or a Vertex version (`@001`). */
const SUFFIX = /^(?:$|@|-(?:preview|exp|latest|\d{2,3})(?:\b|-))/;

/**
 * The profile of a model id (`gemini-2.5-pro`, `models/gemini-2.5-flash-preview-05-20`,
 * `publishers/google/models/gemini-3-flash-preview`). An unknown id is read by its version: 3 and later
 * (and a versionless `-latest` alias) take levels (and need signatures), anything else a pass-through
 * budget; unknown ids have no prices.
 */
export function geminiModelProfile(model: string): GeminiModelProfile {
  const id = String(model).toLowerCase();
  for (const [family, thinking, minBudget, maxBudget, canDisable, levels, prices] of ROWS) {
    const at = id.indexOf(family);
    if (at !== -1 && SUFFIX.test(id.slice(at + family.length))) {
      return profile(family, thinking, minBudget, maxBudget, canDisable, levels, prices);
    }
  }
  // A versionless `-latest` alias names Google's newest model of its kind: Gemini 3 or later.
  const major = Number(/gemini-(\d+)/.exec(id)?.[1] ?? (/gemini-[a-z-]*-latest(?:$|@)/.test(id) ? 3 : 0));
  if (major >= 3) return profile("unknown", "level", 0, 0, false, ALL_LEVELS, undefined);
  return profile("unknown", "budget", 0, 32_768, true, [], undefined);
}

function profile(
  family: string,
  thinking: GeminiThinkingMode,
  minBudget: number,
  maxBudget: number,
  canDisable: boolean,
  levels: readonly GeminiThinkingLevel[],
  prices: GeminiPrices | undefined,
): GeminiModelProfile {
  const three = thinking === "level";
  return {
    family,
    thinking,
    minBudget,
    maxBudget,
    canDisable,
    levels,
    requiresSignatures: three,
    mediaInResults: three,
    schemaWithTools: three,
    prices,
  };
}
