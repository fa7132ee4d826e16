/**
 * Reading the few JSON events a stream sends tens of thousands of times (a text delta, a piece of tool
 * arguments) without `JSON.parse`: the event's text is matched against its exact serialisation by one
 * regular expression, and only the string it carries is taken out. `JSON.parse` builds two or three objects
 * per event and reads every key; the stream assemblers need one string.
 *
 * The rule that keeps this exact: a match gives the value `JSON.parse` would give for that member, or there
 * is no match and the caller parses the whole event as before. Anything the pattern does not spell out —
 * white space, another member order, another member, a number with a sign — is no match, never a guess.
 * Property tests hold every pattern to that rule over random and malformed input.
 *
 * @module
 */

/**
 * The pattern of one JSON string's contents (between its quotes): characters other than a quote, a
 * backslash or a control character, and the escapes JSON has (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`,
 * `\t`, `\uXXXX`). What it matches is valid JSON, and {@link jsonStringValue} decodes it.
 */
export const JSON_STRING_UNCAPTURED = String.raw`(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*`;

/** {@link JSON_STRING_UNCAPTURED} as a capturing group. */
export const JSON_STRING = `(${JSON_STRING_UNCAPTURED})`;

/** The pattern of a JSON array index as JSON writes one: no sign, no leading zero, at most 9 digits. */
export const JSON_INDEX = String.raw`(0|[1-9]\d{0,8})`;

/** The pattern of a non-negative JSON integer of at most 15 digits (a timestamp), not captured. */
export const JSON_COUNT = String.raw`(?:0|[1-9]\d{0,14})`;

/**
 * The value of a JSON string whose contents (between the quotes) {@link JSON_STRING} captured: as it stands
 * when it holds no escape, else decoded by `JSON.parse`. `undefined` if it does not decode, which cannot
 * happen for what the pattern matches: the caller then parses the whole event, as for no match.
 */
export function jsonStringValue(contents: string): string | undefined {
  if (contents.indexOf("\\") === -1) return contents;
  try {
    return JSON.parse(`"${contents}"`) as string;
  } catch {
    // Stryker disable next-line BlockStatement: equivalent: unreachable for contents JSON_STRING matched.
    return undefined;
  }
}
