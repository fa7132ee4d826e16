/**
 * How a key's limits are counted — the decisions of its Durable Object (`key-object.ts`), as pure
 * functions of what it stores:
 *
 * - `rpm`: requests admitted in the last 60 seconds (a sliding window), this one included;
 * - `tpm`: tokens of the requests admitted in the last 60 seconds — each counted at admission as its
 *   estimate (input estimate + its output limit), then as what the upstream reported (total input +
 *   output) once the call ended;
 * - `budget`: US dollars spent in the period (the UTC day, the UTC calendar month, or ever), plus what
 *   the calls in flight may still cost (their estimates, held until they end), plus this request's
 *   estimate, must stay within `usd`.
 *
 * A refusal says when the request could pass (`retryAfterMs`): when enough of the window has passed, when
 * the period ends, or shortly when only calls in flight hold the rest of the budget; none when it never
 * could (a request whose estimate alone is over the limit, a `total` budget spent).
 *
 * @module
 */
import type { KeyBudget, KeyRecord } from "./key-record.ts";

/** The sliding window of `rpm` and `tpm`. */
export const WINDOW_MS = 60_000;

/**
 * A request in flight holds its estimated cost until it ends — this long at most, for one whose Worker
 * died before it could say so (longer than any call the gateway lets run).
 */
export const RESERVATION_MS = 60 * 60_000;

/** How soon to retry when only calls in flight hold the rest of a budget. */
export const IN_FLIGHT_RETRY_MS = 1000;

/** One admitted request in the window. */
export interface WindowEntry {
  at: number;
  tokens: number;
}

/** Why a request is refused: the HTTP status, a code for the dialect's error, the message, when to retry. */
export interface Refusal {
  status: 429 | 403;
  code: "rate_limit_exceeded" | "budget_exceeded" | "price_unknown";
  message: string;
  retryAfterMs?: number | undefined;
}

/**
 * The `rpm` / `tpm` refusal of a request estimated at `tokens`, given the window's entries (admitted in
 * the last {@link WINDOW_MS}, oldest first); undefined when it may pass.
 */
export function rateRefusal(
  record: Pick<KeyRecord, "rpm" | "tpm">,
  window: readonly WindowEntry[],
  tokens: number,
  now: number,
): Refusal | undefined {
  const { rpm, tpm } = record;
  if (rpm !== undefined && window.length >= rpm) {
    // Once the oldest `length - rpm + 1` entries left the window, there is room for one more.
    const freeing = window[window.length - rpm]!;
    return {
      status: 429,
      code: "rate_limit_exceeded",
      message: `rate limit: this key may make ${rpm} requests per minute`,
      retryAfterMs: Math.max(0, freeing.at + WINDOW_MS - now),
    };
  }
  if (tpm === undefined) return undefined;
  if (tokens > tpm) {
    return {
      status: 429,
      code: "rate_limit_exceeded",
      message: `rate limit: this request's estimate of ${tokens} tokens (input + max output) is over the key's ${tpm} tokens per minute; lower its max tokens`,
    };
  }
  let used = 0;
  for (const entry of window) used += entry.tokens;
  if (used + tokens <= tpm) return undefined;
  let index = 0;
  while (used + tokens > tpm) used -= window[index++]!.tokens;
  return {
    status: 429,
    code: "rate_limit_exceeded",
    message: `rate limit: this key may use ${tpm} tokens per minute (${tokens} estimated for this request)`,
    retryAfterMs: Math.max(0, window[index - 1]!.at + WINDOW_MS - now),
  };
}

/**
 * The budget refusal of a request whose cost is estimated at `cost` (undefined: the route's model has no
 * known price), with `spent` in the period and `reserved` held by calls in flight; undefined when it may
 * pass.
 */
export function budgetRefusal(
  budget: KeyBudget,
  spent: number,
  reserved: number,
  cost: number | undefined,
  now: number,
): Refusal | undefined {
  if (cost === undefined) {
    return {
      status: 403,
      code: "price_unknown",
      message:
        "this key has a budget, and the route's model has no known price: the gateway's config must give it one (`prices`)",
    };
  }
  if (spent + reserved + cost <= budget.usd) return undefined;
  const end = periodEnd(budget.period, now);
  const periodText = budget.period === "total" ? "in total" : `per UTC ${budget.period}`;
  if (spent + cost > budget.usd) {
    // Waiting helps only when the period ends and this request alone fits the whole budget.
    const retry = end === undefined || cost > budget.usd ? undefined : end - now;
    return {
      status: 429,
      code: "budget_exceeded",
      message:
        spent >= budget.usd
          ? `budget exceeded: this key may spend $${budget.usd} ${periodText}, and has spent $${round(spent)}`
          : cost > budget.usd
            ? `budget exceeded: this request may cost up to $${round(cost)}, more than the key's whole $${budget.usd} ${periodText}; lower its max tokens`
            : `budget exceeded: this request may cost up to $${round(cost)}, and $${round(budget.usd - spent)} of the key's $${budget.usd} ${periodText} is left`,
      retryAfterMs: retry,
    };
  }
  return {
    status: 429,
    code: "budget_exceeded",
    message: `budget: calls in flight may use the rest of this key's $${budget.usd} ${periodText}; retry when they have ended`,
    retryAfterMs: IN_FLIGHT_RETRY_MS,
  };
}

/** The spend row of `period` at `now`: `day:2026-12-02`, `month:2026-12`, `total`. */
export function periodKey(period: KeyBudget["period"], now: number): string {
  const iso = new Date(now).toISOString();
  if (period === "day") return `day:${iso.slice(0, 10)}`;
  if (period === "month") return `month:${iso.slice(0, 7)}`;
  return "total";
}

/** When the period around `now` ends (UTC); undefined for `total`, which never does. */
export function periodEnd(period: KeyBudget["period"], now: number): number | undefined {
  const date = new Date(now);
  if (period === "day") return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1);
  if (period === "month") return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  return undefined;
}

/** Dollars for a message: at most six decimals, no float noise. */
function round(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}
