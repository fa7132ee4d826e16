/**
 * Reasoning that crosses a change of dialect. When a client's dialect differs from its route's protocol
 * (Codex on the Responses API → an Anthropic route; Claude Code on Messages → a Responses route), the
 * route's native turn — signed thinking blocks, encrypted reasoning items — cannot be written in the
 * client's dialect. It rides instead, whole, in the one field that dialect's clients replay untouched: a
 * Responses reasoning item's `encrypted_content`, an Anthropic thinking block's `signature`.
 *
 * The encoding: `mw1.` then the base64url (no padding) of the UTF-8 JSON
 * `{"route": <route>, "native": {"protocol", "origin", "model", "blocks"}}` — the assistant message's
 * `native` (see `Native` in the message model) and the route that made it. On a later request the field is
 * unwrapped; the turn is given its `native` back only when the request is for the same route, and the
 * protocol's own provenance rule (protocol, origin, model) then decides, as for any stored history,
 * whether the blocks replay verbatim. Anything else — another route, a damaged or foreign value — is
 * dropped with a warning, never sent upstream.
 *
 * The envelope is not signed: it carries only what the client could send in its own dialect anyway.
 *
 * @module
 */
import { base64ToBytes, bytesToBase64, bytesToBase64url } from "../core/base64.ts";
import type { Native } from "../core/message.ts";

/** The prefix of an envelope: the scheme and its version. */
export const ENVELOPE_PREFIX = "mw1.";

/** What an envelope carries. */
export interface ReasoningEnvelope {
  /** The route whose member produced the turn. */
  route: string;
  /** The assistant message's native turn. */
  native: Native;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** An envelope as the opaque text of a client's field. */
export function wrapReasoning(envelope: ReasoningEnvelope): string {
  const json = JSON.stringify({ route: envelope.route, native: envelope.native });
  return ENVELOPE_PREFIX + bytesToBase64url(encoder.encode(json));
}

/** Whether a client's opaque field holds an envelope (it may still be damaged: see {@link unwrapReasoning}). */
export function isEnvelope(value: unknown): value is string {
  return typeof value === "string" && value.startsWith(ENVELOPE_PREFIX);
}

/**
 * The envelope in a client's opaque field; undefined for a value that is not one, or one that is damaged
 * (not base64url, not UTF-8 JSON, not the shape above).
 */
export function unwrapReasoning(value: unknown): ReasoningEnvelope | undefined {
  if (!isEnvelope(value)) return undefined;
  const body = value.slice(ENVELOPE_PREFIX.length);
  if (!/^[A-Za-z0-9_-]*$/.test(body) || body.length % 4 === 1) return undefined;
  let parsed: unknown;
  try {
    const base64 = body.replaceAll("-", "+").replaceAll("_", "/");
    parsed = JSON.parse(decoder.decode(base64ToBytes(base64 + "=".repeat((4 - (base64.length % 4)) % 4))));
  } catch {
    return undefined;
  }
  const { route, native } = (parsed ?? {}) as { route?: unknown; native?: Partial<Native> | null };
  if (typeof route !== "string" || typeof native !== "object" || native === null) return undefined;
  const { protocol, origin, model, blocks } = native;
  if (typeof protocol !== "string" || typeof origin !== "string" || typeof model !== "string")
    return undefined;
  if (!Array.isArray(blocks)) return undefined;
  return { route, native: { protocol, origin, model, blocks } };
}

/**
 * The `native` a turn of a request for `route` gets back from the envelopes found in it (the first one
 * that unwraps), or undefined with a warning naming `where` for each one that cannot be used: damaged, or
 * made on another route.
 */
export function nativeFromEnvelopes(
  values: readonly unknown[],
  route: string,
  where: string,
  warnings: string[],
): Native | undefined {
  let found: Native | undefined;
  for (const value of values) {
    if (!isEnvelope(value)) continue;
    const envelope = unwrapReasoning(value);
    if (envelope === undefined) {
      warnings.push(`${where}: carried reasoning that cannot be read; left out`);
    } else if (envelope.route !== route) {
      warnings.push(
        `${where}: reasoning carried from route "${envelope.route}" does not replay on route "${route}"; left out`,
      );
    } else {
      found ??= envelope.native;
    }
  }
  return found;
}
