/**
 * Framing errors from the wire layer. The wire layer knows no provider, so it reports what went wrong
 * with the bytes; the provider layer turns a `WireError` into a `ProviderError` with its provider and
 * model (see `toProviderError`).
 *
 * @module
 */

/** What went wrong with the bytes. */
export type WireErrorCode =
  /** A line or event grew past the configured buffer limit. */
  | "buffer_overflow"
  /** The body ended in the middle of a frame or before the protocol's terminal event. */
  | "truncated"
  /** A frame failed a checksum or had impossible lengths. */
  | "corrupt_frame"
  /** A frame or event could not be parsed as what the protocol says it must be. */
  | "invalid_payload";

/** A framing failure: malformed, oversized, corrupted or cut bytes. */
export class WireError extends Error {
  override readonly name = "WireError";
  readonly code: WireErrorCode;

  constructor(code: WireErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }

  /** True for a `WireError` from any copy of this package. */
  static is(error: unknown): error is WireError {
    return error instanceof WireError || (error as { name?: unknown } | null)?.name === "WireError";
  }
}
