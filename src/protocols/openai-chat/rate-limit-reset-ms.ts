/**
 * OpenAI-style rate-limit headers: how long until a limit resets. Part of OpenAI's error answer, read by
 * {@link mapOpenAIChatError} (`retryAfterMs` of a 429 without `Retry-After`) and by `retry()`.
 *
 * @module
 */

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Milliseconds until a rate limit resets, from OpenAI-style `x-ratelimit-reset-*` headers
 * (`x-ratelimit-reset-requests: 1s`, `x-ratelimit-reset-tokens: 6m0s`, `20ms`, `1h2m3.5s`; a bare number is
 * seconds). When the matching `x-ratelimit-remaining-*` header says a limit is spent (`0`), only spent
 * limits count; otherwise the longest reset does. `undefined` when no such header can be read. Rounded up to
 * whole milliseconds.
 *
 * @example
 * ```ts
 * rateLimitResetMs(new Headers({ "x-ratelimit-reset-requests": "1s", "x-ratelimit-reset-tokens": "6m0s" }));
 * // 360000
 * rateLimitResetMs({
 *   "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "20ms",
 *   "x-ratelimit-remaining-tokens": "9000", "x-ratelimit-reset-tokens": "6m0s",
 * }); // 20
 * ```
 */
export function rateLimitResetMs(
  headers: Headers | Readonly<Record<string, string | undefined>>,
): number | undefined {
  const entries: [string, string][] = [];
  if (typeof (headers as Headers).forEach === "function" && typeof (headers as Headers).get === "function") {
    (headers as Headers).forEach((value, name) => {
      entries.push([name.toLowerCase(), value]);
    });
  } else {
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value === "string") entries.push([name.toLowerCase(), value]);
    }
  }
  const remaining = new Map<string, string>();
  const resets: { limit: string; ms: number }[] = [];
  for (const [name, value] of entries) {
    const reset = /^x-ratelimit-reset(?:-(.+))?$/.exec(name);
    if (reset) {
      const ms = parseDuration(value);
      if (ms !== undefined) resets.push({ limit: reset[1] ?? "", ms });
      continue;
    }
    const left = /^x-ratelimit-remaining(?:-(.+))?$/.exec(name);
    if (left) remaining.set(left[1] ?? "", value.trim());
  }
  if (resets.length === 0) return undefined;
  const spent = resets.filter(({ limit }) => remaining.get(limit) === "0");
  const counted = spent.length > 0 ? spent : resets;
  return Math.ceil(Math.max(...counted.map(({ ms }) => ms)));
}

/** `"6m0s"` → 360000; `"1.5"` → 1500; unreadable → undefined. */
function parseDuration(text: string): number | undefined {
  const value = text.trim();
  if (/^\d+(?:\.\d+)?$/.test(value)) return Number(value) * 1000;
  if (!/^(?:\d+(?:\.\d+)?(?:ns|us|µs|μs|ms|s|m|h))+$/.test(value)) return undefined;
  let total = 0;
  for (const [, amount, unit] of value.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|μs|ms|s|m|h)/g)) {
    total += Number(amount) * UNIT_MS[unit!]!;
  }
  return total;
}
