/**
 * Claude on Vertex AI on the wire: the Anthropic Messages body in Vertex's envelope, posted to the
 * model's `rawPredict` (whole) or `streamRawPredict` (SSE). The answer and the stream's events are
 * Anthropic's own (`anthropic-wire.ts`); errors come Anthropic-shaped (`{ type: "error", error }`) or,
 * from Google's front end (quota, auth, an unknown model), Google-shaped (`{ error: { code, status,
 * message, details } }`), sometimes inside a one-element array.
 *
 * @see https://platform.claude.com/docs/en/build-with-claude/claude-on-vertex-ai
 * @module
 */
import type { AnthropicRequestBody } from "../anthropic-messages/anthropic-wire.ts";

/** `anthropic_version` of the body Vertex takes for Claude (in the body, not a header). */
export const VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16";

/**
 * `native.origin` of everything Vertex AI produced: Claude's signed thinking replays to Vertex only (its
 * signatures are not the first-party API's or Bedrock's), and so does Gemini's `thoughtSignature`.
 */
export const VERTEX_ORIGIN = "vertex";

/**
 * The rawPredict / streamRawPredict body: the Messages body without `model` (the URL names it), with
 * `anthropic_version`. `stream: true` goes with `streamRawPredict`, as on the first-party API.
 */
export interface VertexAnthropicRequestBody extends Omit<AnthropicRequestBody, "model"> {
  anthropic_version: string;
}

/** A Google API error body (`google.rpc.Status` in JSON), as Vertex's front end answers. */
export interface GoogleRpcErrorBody {
  error?: {
    code?: number;
    message?: string;
    /** The `google.rpc.Code` name: `RESOURCE_EXHAUSTED`, `PERMISSION_DENIED`, … */
    status?: string;
    /** Typed details: `google.rpc.RetryInfo { retryDelay: "34.4s" }`, `QuotaFailure`, `ErrorInfo`, … */
    details?: readonly ({ "@type"?: string } & Record<string, unknown>)[];
  } | null;
}
