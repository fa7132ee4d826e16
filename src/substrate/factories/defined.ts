/**
 * `defined()`: a settings object without its `undefined` fields, so a factory hands a provider only what
 * the config set (a provider's own defaults apply to the rest).
 *
 * @module
 */

/** `object` without its `undefined` fields. */
export function defined<T extends Record<string, unknown>>(object: T): Partial<T> {
  const result: Partial<T> = {};
  for (const [key, value] of Object.entries(object)) {
    if (value !== undefined) (result as Record<string, unknown>)[key] = value;
  }
  return result;
}
