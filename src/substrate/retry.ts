/**
 * `retry()`: a provider that retries transient failures of another, with full-jitter exponential backoff;
 * and {@link rateLimitResetMs}, reading OpenAI-style `x-ratelimit-reset-*` headers.
 *
 * @module
 */

import { abortedError } from "../core/aborted-error.ts";
import type { CallOptions } from "../core/call-options.ts";
import type { MessageInput } from "../core/message.ts";
import type { Provider } from "../core/provider.ts";
import { ProviderError } from "../core/provider-error.ts";
import type { Response } from "../core/response.ts";
import type { StreamEvent } from "../core/stream-event.ts";
import { holdUntilContent } from "../core/stream-guards.ts";
import type { ToolSpecInput } from "../core/tool-spec.ts";
import { ValidationError } from "../core/validation-error.ts";

/** A retry about to happen. */
export interface RetryEvent {
  /** The attempt that failed (1 = the first call). */
  attempt: number;
  /** How long the wrapper waits before the next attempt. */
  delayMs: number;
  error: ProviderError;
}

/** Options of {@link retry}. */
export interface RetryOptions {
  /** Attempts in all, the first call included; default 3. `1` never retries. */
  attempts?: number | undefined;
  /** Base delay in milliseconds: attempt n waits up to `backoff × 2^(n-1)` (full jitter); default 500. */
  backoff?: number | undefined;
  /**
   * Longest wait in milliseconds; default 30 000. A `retryAfterMs` beyond it is not waited out: the error
   * is raised at once, so a fallback chain around the retry can move on.
   */
  maxDelay?: number | undefined;
  /** Total time budget in milliseconds (by `now`): a wait that would end past it is not started. */
  maxElapsed?: number | undefined;
  /** Waits `ms`. Default: `setTimeout`. An abort of the call's signal ends the wait either way. */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** Uniform in [0, 1); default `Math.random`. */
  random?: (() => number) | undefined;
  /** Clock for `maxElapsed`, in milliseconds; default `Date.now`. */
  now?: (() => number) | undefined;
  /** Called before each wait. Exceptions from it are ignored. */
  onRetry?: ((event: RetryEvent) => void) | undefined;
}

/**
 * A provider that retries `provider` on retryable errors.
 *
 * - Only errors whose `retryable` is true are retried (rate limits, overload, 5xx, timeouts, network, cut
 *   streams — unless the provider said otherwise, e.g. a spent quota). Never an abort, never a bad request.
 * - Attempt n waits a uniformly random time in `[0, min(maxDelay, backoff × 2^(n-1)))` ("full jitter"), or
 *   at least the error's `retryAfterMs` (from `retry-after`, `retry-after-ms`, …) when it has one.
 * - An abort stops it, also during a wait (the wait ends at once with an `aborted` error).
 * - A stream is retried only before its first content event: `usage` events are held until then, and an
 *   error after output has reached the caller is raised with `partialOutput: true` (both by
 *   `holdUntilContent`, like every other stream wrapper).
 *
 * `name`, `model` and `protocol` are the wrapped provider's.
 *
 * @example
 * ```ts
 * const claude = retry(anthropic({ apiKey, model: "claude-sonnet-4-6" }), { attempts: 4, backoff: 1000 });
 * // Tests: no real sleeping.
 * const fast = retry(fake, { sleep: async () => {}, random: () => 0.5 });
 * ```
 */
export function retry(provider: Provider, options: RetryOptions = {}): Provider {
  const attempts = option(options.attempts, 3, "attempts", (value) => Number.isInteger(value) && value >= 1);
  const backoff = option(options.backoff, 500, "backoff", (value) => value >= 0);
  const maxDelay = option(options.maxDelay, 30_000, "maxDelay", (value) => value >= 0);
  const maxElapsed = option(
    options.maxElapsed,
    Number.POSITIVE_INFINITY,
    "maxElapsed",
    (value) => value >= 0,
  );
  const sleep = options.sleep ?? timerSleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;

  /** How long to wait after `attempt` failed with `error`, or `undefined` to raise it. */
  const delayAfter = (attempt: number, error: unknown, signal: AbortSignal | undefined, started: number) => {
    if (attempt >= attempts || signal?.aborted) return undefined;
    if (!ProviderError.is(error) || !error.retryable || error.kind === "aborted") return undefined;
    const ceiling = Math.min(maxDelay, backoff * 2 ** (attempt - 1));
    const jittered = Math.floor(Math.min(Math.max(random(), 0), 1) * ceiling);
    const retryAfter = error.retryAfterMs;
    if (retryAfter !== undefined && retryAfter > maxDelay) return undefined;
    const delay = retryAfter === undefined ? jittered : Math.max(jittered, retryAfter);
    if (now() - started + delay > maxElapsed) return undefined;
    try {
      options.onRetry?.({ attempt, delayMs: delay, error });
    } catch {
      // A hook never changes the outcome.
    }
    return delay;
  };

  const wait = (ms: number, signal: AbortSignal | undefined) => abortableSleep(sleep, ms, signal, provider);

  return {
    name: provider.name,
    model: provider.model,
    protocol: provider.protocol,

    async complete(
      messages: readonly MessageInput[],
      tools?: readonly ToolSpecInput[],
      callOptions: CallOptions = {},
    ): Promise<Response> {
      const started = now();
      for (let attempt = 1; ; attempt++) {
        try {
          return await provider.complete(messages, tools, callOptions);
        } catch (error) {
          const delay = delayAfter(attempt, error, callOptions.signal, started);
          if (delay === undefined) throw error;
          await wait(delay, callOptions.signal);
        }
      }
    },

    async *stream(
      messages: readonly MessageInput[],
      tools?: readonly ToolSpecInput[],
      callOptions: CallOptions = {},
    ): AsyncGenerator<StreamEvent, void, undefined> {
      const started = now();
      for (let attempt = 1; ; attempt++) {
        let events: AsyncIterableIterator<StreamEvent>;
        try {
          // Usage before the first content event is held: released with it, dropped if this attempt fails.
          events = await holdUntilContent(() => provider.stream(messages, tools, callOptions), {
            provider: provider.name,
            model: provider.model,
          });
        } catch (error) {
          const delay = delayAfter(attempt, error, callOptions.signal, started);
          if (delay === undefined) throw error;
          await wait(delay, callOptions.signal);
          continue;
        }
        // An error from here on comes after output (`partialOutput`) and is never retried.
        yield* events;
        return;
      }
    },
  };
}

function option(
  value: number | undefined,
  fallback: number,
  path: string,
  valid: (value: number) => boolean,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || Number.isNaN(value) || !valid(value)) {
    throw new ValidationError([{ path, message: `invalid value ${JSON.stringify(value)}` }]);
  }
  return value;
}

function timerSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    // On abort, stop the timer; abortableSleep has already rejected.
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** `sleep(ms)`, ended early by an abort of `signal` with an `aborted` error, whatever `sleep` does. */
function abortableSleep(
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
  ms: number,
  signal: AbortSignal | undefined,
  provider: Provider,
): Promise<void> {
  if (!signal) return sleep(ms);
  if (signal.aborted) return Promise.reject(abortedError(provider, signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortedError(provider, signal));
    signal.addEventListener("abort", onAbort, { once: true });
    sleep(ms, signal).then(
      () => {
        signal.removeEventListener("abort", onAbort);
        if (signal.aborted) reject(abortedError(provider, signal));
        else resolve();
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(signal.aborted ? abortedError(provider, signal) : error);
      },
    );
  });
}

export { rateLimitResetMs } from "../providers/rate-limit-reset.ts";
