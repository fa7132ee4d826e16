/**
 * `fallback()`: a chain of providers tried in order, itself a `Provider`. Each entry says which errors let
 * a call fall through to the next one; an empty list is a hard barrier.
 *
 * @module
 */
import type { CallOptions } from "../core/call-options.ts";
import type { MessageInput } from "../core/message.ts";
import type { Provider } from "../core/provider.ts";
import { ProviderError, type ProviderErrorJSON, type ProviderErrorKind } from "../core/provider-error.ts";
import type { Response } from "../core/response.ts";
import type { StreamEvent } from "../core/stream-event.ts";
import { holdUntilContent } from "../core/stream-guards.ts";
import type { ToolSpecInput } from "../core/tool-spec.ts";
import { ValidationError } from "../core/validation-error.ts";
import { chainFailures, type FallbackFailure } from "./chain-failures.ts";

export type { FallbackFailure };

/**
 * What lets a call fall through an entry: an error kind, `"retryable"` (any error whose `retryable` is
 * true) or `"any"` (any `ProviderError`). An abort never falls through, whatever the list says; an error
 * that is not a `ProviderError` (a bug) never does either.
 */
export type FallbackTrigger = ProviderErrorKind | "retryable" | "any";

/** One member of a chain. */
export interface FallbackEntry {
  provider: Provider;
  /**
   * The errors that fall through to the next entry. Unset (`undefined`): the chain's `defaultTriggers`.
   * `[]`: a hard barrier — an error here is raised, whatever entries follow.
   */
  triggers?: readonly FallbackTrigger[] | undefined;
  /** Key of this member in the cooldown store; default `"<index>:<provider name>:<model>"`. */
  cooldownKey?: string | undefined;
}

/**
 * Where cooldowns live: in memory by default; a Worker can keep them in a Durable Object. Both methods may
 * be async. A store that fails is treated as empty (the member is tried).
 */
export interface CooldownStore {
  /** Epoch milliseconds until which `key` is cooling, or `undefined`. */
  get(key: string): number | undefined | Promise<number | undefined>;
  set(key: string, untilMs: number): void | Promise<void>;
}

/** Cooldown of members that keep failing. */
export interface FallbackCooldown {
  /** How long a member is skipped, in milliseconds. */
  ms: number;
  /** Consecutive falling-through failures (in this chain instance) before a member cools; default 1. */
  after?: number | undefined;
  /** Default: an in-memory map owned by the chain. */
  store?: CooldownStore | undefined;
  /** Clock, epoch milliseconds; default `Date.now`. */
  now?: (() => number) | undefined;
}

/** An entry passed over: it failed with a falling-through error, or it was cooling and skipped. */
export interface FallbackEvent {
  index: number;
  provider: string;
  model: string;
  reason: "error" | "cooldown";
  /** The entry's error (`reason: "error"`). */
  error?: ProviderErrorJSON | undefined;
}

/** Options of {@link fallback}. */
export interface FallbackOptions {
  /** Triggers of entries that set none; default `["retryable"]`. */
  defaultTriggers?: readonly FallbackTrigger[] | undefined;
  /** Skip members that keep failing for a while; off by default. */
  cooldown?: FallbackCooldown | undefined;
  /** Called each time the chain passes over an entry, as it happens. Exceptions from it are ignored. */
  onFallback?: ((event: FallbackEvent) => void) | undefined;
  /** `Provider.name` of the chain; default `"fallback"`. */
  name?: string | undefined;
}

const DEFAULT_TRIGGERS: readonly FallbackTrigger[] = ["retryable"];

/**
 * A provider that tries `entries` in order.
 *
 * - An entry's `triggers` decide whether its error falls through: unset inherits `defaultTriggers`
 *   (default: any retryable error); `[]` is a hard barrier; the last entry always re-raises.
 * - Aborts never fall through.
 * - Streaming falls through only before the first content event (text, reasoning, tool call) has reached
 *   the caller; `usage` events are held back until then. Once output has gone out, an error is raised with
 *   `partialOutput: true` — never a silent switch that would duplicate text (the rule of
 *   `holdUntilContent`, shared with `retry()` and the Worker's pools).
 * - The response is stamped with `servedBy`: the serving entry's index, provider and model, and the
 *   failures before it (`ProviderError.toJSON()` data plus `index`). Nested chains: the outer stamp wins.
 * - With `cooldown`, a member whose errors keep falling through is skipped for `cooldown.ms`. A barrier is
 *   never skipped (that would fall through it), and neither is the last entry: when every member is
 *   cooling, the last one is still tried.
 * - Reasoning is not carried across models: each adapter replays `native` blocks only on an exact
 *   provenance match, so the next model gets the neutral history without the previous model's thinking.
 *
 * @example
 * ```ts
 * const chain = fallback(
 *   [
 *     { provider: anthropic({ apiKey, model: "claude-sonnet-4-6" }) },            // inherits: retryable
 *     { provider: openaiChat({ apiKey: openaiKey, model: "gpt-4.1" }), triggers: [] }, // barrier
 *     { provider: local },                                                         // never reached on error
 *   ],
 *   { cooldown: { ms: 30_000 } },
 * );
 * const response = await chain.complete(history);
 * response.servedBy; // { index: 0, provider: "anthropic", model: "claude-sonnet-4-6", failures: [] }
 * ```
 */
export function fallback(entries: readonly FallbackEntry[], options: FallbackOptions = {}): Provider {
  if (!Array.isArray(entries) || entries.length === 0) {
    throw new ValidationError([{ path: "entries", message: "a fallback chain needs at least one entry" }]);
  }
  entries.forEach((entry, index) => {
    if (typeof entry?.provider?.complete !== "function" || typeof entry.provider.stream !== "function") {
      throw new ValidationError([{ path: `entries[${index}].provider`, message: "must be a Provider" }]);
    }
  });
  const chain = [...entries];
  const defaultTriggers = options.defaultTriggers ?? DEFAULT_TRIGGERS;
  const cooldown = cooldownState(chain, options.cooldown);
  const first = chain[0]!.provider;
  const self = { name: options.name ?? "fallback", model: first.model };

  const triggersOf = (entry: FallbackEntry): readonly FallbackTrigger[] => entry.triggers ?? defaultTriggers;

  const notify = (event: FallbackEvent) => {
    try {
      options.onFallback?.(event);
    } catch {
      // A telemetry hook never changes the outcome of a call.
    }
  };

  /** Whether to skip entry `index` because it is cooling (never a barrier, never the last entry). */
  const skip = async (index: number): Promise<boolean> => {
    const entry = chain[index]!;
    if (!cooldown || index === chain.length - 1 || triggersOf(entry).length === 0) return false;
    if (!(await cooldown.cooling(index))) return false;
    notify({ index, provider: entry.provider.name, model: entry.provider.model, reason: "cooldown" });
    return true;
  };

  /**
   * After entry `index` failed: whether to fall through. Records the failure (cooldown, failures list,
   * event) when it does; otherwise returns false and the caller raises.
   */
  const fallsThrough = async (
    index: number,
    error: unknown,
    signal: AbortSignal | undefined,
    failures: FallbackFailure[],
  ): Promise<boolean> => {
    const entry = chain[index]!;
    if (signal?.aborted || !ProviderError.is(error)) return false;
    const matched = matches(triggersOf(entry), error);
    if (matched) await cooldown?.failed(index);
    if (!matched || index === chain.length - 1) return false;
    const record: FallbackFailure = { ...error.toJSON(), index };
    failures.push(record);
    notify({
      index,
      provider: entry.provider.name,
      model: entry.provider.model,
      reason: "error",
      error: error.toJSON(),
    });
    return true;
  };

  const stamp = (response: Response, index: number, failures: readonly FallbackFailure[]): Response => {
    const { provider } = chain[index]!;
    cooldown?.succeeded(index);
    return {
      ...response,
      servedBy: { index, provider: provider.name, model: provider.model, failures: [...failures] },
    };
  };

  /** `error`, with the chain's failures before it attached (read by telemetry), ready to throw. */
  const withFailures = (error: unknown, failures: readonly FallbackFailure[]): unknown => {
    if (typeof error === "object" && error !== null && failures.length > 0)
      chainFailures.set(error, failures);
    return error;
  };

  return {
    name: self.name,
    model: self.model,
    protocol: "fallback",

    async complete(
      messages: readonly MessageInput[],
      tools?: readonly ToolSpecInput[],
      callOptions: CallOptions = {},
    ): Promise<Response> {
      const failures: FallbackFailure[] = [];
      for (let index = 0; index < chain.length; index++) {
        if (await skip(index)) continue;
        try {
          const response = await chain[index]!.provider.complete(messages, tools, callOptions);
          return stamp(response, index, failures);
        } catch (error) {
          if (!(await fallsThrough(index, error, callOptions.signal, failures)))
            throw withFailures(error, failures);
        }
      }
      // Unreachable: the last entry is never skipped and never falls through.
      throw new Error("fallback: no entry answered");
    },

    async *stream(
      messages: readonly MessageInput[],
      tools?: readonly ToolSpecInput[],
      callOptions: CallOptions = {},
    ): AsyncGenerator<StreamEvent, void, undefined> {
      const failures: FallbackFailure[] = [];
      for (let index = 0; index < chain.length; index++) {
        if (await skip(index)) continue;
        const { provider } = chain[index]!;
        let events: AsyncIterableIterator<StreamEvent>;
        try {
          // Usage before the first content event is held: released with it, dropped if this entry fails.
          events = await holdUntilContent(() => provider.stream(messages, tools, callOptions), {
            provider: provider.name,
            model: provider.model,
          });
        } catch (error) {
          if (await fallsThrough(index, error, callOptions.signal, failures)) continue;
          throw withFailures(error, failures);
        }
        try {
          for await (const event of events) {
            yield event.type === "done"
              ? { type: "done", response: stamp(event.response, index, failures) }
              : event;
          }
          return;
        } catch (error) {
          // Output reached the caller (the error says `partialOutput`): switching now would duplicate it.
          throw withFailures(error, failures);
        }
      }
      throw new Error("fallback: no entry answered");
    },
  };
}

function matches(triggers: readonly FallbackTrigger[], error: ProviderError): boolean {
  if (error.kind === "aborted") return false;
  return triggers.some(
    (trigger) => trigger === "any" || trigger === error.kind || (trigger === "retryable" && error.retryable),
  );
}

interface CooldownState {
  cooling(index: number): Promise<boolean>;
  failed(index: number): Promise<void>;
  succeeded(index: number): void;
}

function cooldownState(
  entries: readonly FallbackEntry[],
  settings: FallbackCooldown | undefined,
): CooldownState | undefined {
  if (!settings) return undefined;
  if (!(typeof settings.ms === "number" && settings.ms > 0)) {
    throw new ValidationError([
      { path: "cooldown.ms", message: "must be a positive number of milliseconds" },
    ]);
  }
  const after = settings.after ?? 1;
  if (!Number.isInteger(after) || after < 1) {
    throw new ValidationError([{ path: "cooldown.after", message: "must be a positive integer" }]);
  }
  const memory = new Map<string, number>();
  const store: CooldownStore = settings.store ?? {
    get: (key) => memory.get(key),
    set: (key, until) => {
      memory.set(key, until);
    },
  };
  const now = settings.now ?? Date.now;
  const streaks = new Map<string, number>();
  const keyOf = (index: number) => {
    const entry = entries[index]!;
    return entry.cooldownKey ?? `${index}:${entry.provider.name}:${entry.provider.model}`;
  };
  return {
    async cooling(index) {
      try {
        const until = await store.get(keyOf(index));
        return typeof until === "number" && until > now();
      } catch {
        return false;
      }
    },
    async failed(index) {
      const key = keyOf(index);
      const streak = (streaks.get(key) ?? 0) + 1;
      if (streak < after) {
        streaks.set(key, streak);
        return;
      }
      streaks.delete(key);
      try {
        await store.set(key, now() + settings.ms);
      } catch {
        // A store that cannot record a cooldown costs a failed attempt later, nothing more.
      }
    },
    succeeded(index) {
      streaks.delete(keyOf(index));
    },
  };
}
