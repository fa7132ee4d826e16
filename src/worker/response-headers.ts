/**
 * The gateway's own response headers on the dialect routes (`/v1/messages`, `/v1/responses`): what a
 * request lost on the way, said where every client can read it without a change to its SDK.
 *
 * - `x-modelwire-warnings`: a JSON array of strings, in printable ASCII (anything else `\\uXXXX`-escaped: a
 *   header value is one Latin-1 line), at most 4000 characters — the last entry then says how many more
 *   there were.
 * - `x-modelwire-dropped-betas`: the beta flags the upstream does not take, comma-separated (Bedrock
 *   InvokeModel and Vertex take only some). Only flags that look like one (`^[A-Za-z0-9._-]+$`, at most
 *   100 characters) are named; the others — a client's flag may hold anything — are counted
 *   (`+N unnamed`), so a header value never holds a line break or a non-Latin-1 character.
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
  if (warnings.length > 0) headers[WARNINGS_HEADER] = warningsValue(warnings);
  if (droppedBetas.length > 0) headers[DROPPED_BETAS_HEADER] = droppedBetasValue(droppedBetas);
  return headers;
}

/**
 * The warnings as a JSON array within {@link MAX_WARNINGS_CHARS}: built forward, each entry escaped once,
 * stopping at the first that does not fit with room for the `… and N more` entry (linear in the number of
 * warnings, however many there are).
 */
function warningsValue(warnings: readonly string[]): string {
  const whole = asciiJSON(warnings);
  if (whole.length <= MAX_WARNINGS_CHARS) return whole;
  // Room kept for the last entry, `,"… and N more"` (escaped), N at most the warnings' count.
  const tail = (more: number) => `,${asciiJSON(`… and ${more} more`)}`;
  const reserve = tail(warnings.length).length;
  const parts: string[] = [];
  let length = 1; // "["
  for (const warning of warnings) {
    const part = asciiJSON(warning);
    const added = (parts.length > 0 ? 1 : 0) + part.length;
    if (length + added + reserve + 1 > MAX_WARNINGS_CHARS) break;
    parts.push(part);
    length += added;
  }
  if (parts.length === 0) return asciiJSON([`${warnings.length} warning(s), too long to show`]);
  return `[${parts.join(",")}${tail(warnings.length - parts.length)}]`;
}

/** A flag the dropped-betas header names as it is. */
const FLAG_PATTERN = /^[A-Za-z0-9._-]{1,100}$/;

/** The dropped flags that look like one, comma-separated, then how many others there were. */
function droppedBetasValue(droppedBetas: readonly string[]): string {
  const named = droppedBetas.filter((flag) => FLAG_PATTERN.test(flag));
  const unnamed = droppedBetas.length - named.length;
  return [...named, ...(unnamed > 0 ? [`+${unnamed} unnamed`] : [])].join(",");
}
