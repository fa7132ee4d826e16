/**
 * The gateway's own response headers on the dialect routes (`/v1/messages`, `/v1/responses`): what a
 * request lost on the way, said where every client can read it without a change to its SDK.
 *
 * - `x-modelwire-warnings`: a JSON array of strings, in printable ASCII (anything else `\\uXXXX`-escaped: a
 *   header value is one Latin-1 line), at most 4000 characters — the last entry then says how many more
 *   there were.
 * - `x-modelwire-dropped-betas`: the beta flags the upstream does not take, comma-separated (Bedrock
 *   InvokeModel takes only some).
 *
 * A stream whose upstream answered after the gateway's hold (`streamHoldMs`) had already started its
 * response: these then come as SSE comment lines (`: x-modelwire-warnings: […]`) before its first event.
 *
 * @module
 */

/** The response header carrying the call's warnings. */
export const WARNINGS_HEADER = "x-modelwire-warnings";
/** The response header listing the beta flags the upstream does not take. */
export const DROPPED_BETAS_HEADER = "x-modelwire-dropped-betas";

/** Most characters of the warnings header (proxies refuse very long headers). */
const MAX_WARNINGS_CHARS = 4000;

/** A JSON text in printable ASCII, fit for a header value. */
function asciiJSON(value: unknown): string {
  return JSON.stringify(value).replace(
    /[^\x20-\x7e]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * The headers for a call's warnings (those that fit) and dropped beta flags, each only when there is
 * something to say.
 */
export function dialectHeaders(
  warnings: readonly string[],
  droppedBetas: readonly string[] = [],
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (warnings.length > 0) {
    let kept = [...warnings];
    let value = asciiJSON(kept);
    while (value.length > MAX_WARNINGS_CHARS && kept.length > 1) {
      kept = kept.slice(0, -1);
      value = asciiJSON([...kept, `… and ${warnings.length - kept.length} more`]);
    }
    if (value.length > MAX_WARNINGS_CHARS)
      value = asciiJSON([`${warnings.length} warning(s), too long to show`]);
    headers[WARNINGS_HEADER] = value;
  }
  if (droppedBetas.length > 0) headers[DROPPED_BETAS_HEADER] = droppedBetas.join(",");
  return headers;
}
