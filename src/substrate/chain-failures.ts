/**
 * What a fallback chain tried before the error it finally raised. A successful call carries this in
 * `Response.servedBy.failures`; a failed one has no such field, so the chain records it here, keyed by the
 * error object it raises, for `withTelemetry()` to report as fallback events.
 *
 * @module
 */
import type { ProviderErrorJSON } from "../core/provider-error.ts";

/** One entry that failed and was fallen through: its error as `toJSON()` data plus its chain position. */
export type FallbackFailure = ProviderErrorJSON & {
  /** Position of the entry in its chain. */
  index: number;
};

/**
 * Error raised by a chain → the failures of the entries tried before it. Weak, so an error that is
 * dropped takes its record with it.
 *
 * @example
 * ```ts
 * const failures = chainFailures.get(error) ?? [];
 * ```
 */
export const chainFailures: WeakMap<object, readonly FallbackFailure[]> = new WeakMap();
