/**
 * A tiny assertion library with no imports at all, so the shared runtime cases run unchanged in Node, Deno,
 * Bun and workerd without `nodejs_compat` (no `node:assert` there).
 *
 * - {@link equal}: structural deep equality. Key presence matters (`{ a: undefined }` is not `{}`),
 *   `undefined`, `null`, `0`, `""` and `false` are all distinct, arrays and typed arrays compare element by
 *   element, `NaN` equals `NaN`.
 * - {@link ok}: truthiness.
 * - {@link rejects} / {@link throws}: the call must fail; the error is returned for further checks.
 *
 * @module
 */

/** Thrown by every assertion here. */
export class AssertionError extends Error {
  override readonly name = "AssertionError";
}

/**
 * What the error of {@link rejects} / {@link throws} must satisfy:
 * - an `Error` subclass: `instanceof`;
 * - a `RegExp`: tested against the error's `message`;
 * - a function: called with the error; returning `false` fails, throwing fails with that error, anything
 *   else passes (so the function may itself assert).
 */
export type ErrorPredicate =
  | RegExp
  | (abstract new (
      ...args: never[]
    ) => Error)
  | ((error: never) => unknown);

/** JSON for failure messages: `undefined`, bigints, byte arrays, errors and functions stay visible. */
export function show(value: unknown): string {
  if (value === undefined) return "undefined";
  const seen = new WeakSet<object>();
  try {
    return JSON.stringify(value, (_key: string, raw: unknown) => {
      // `toJSON` (Dates, ProviderError) has already run; typed arrays, Maps and Sets arrive as they are.
      if (raw === undefined) return "<undefined>";
      if (typeof raw === "bigint") return `${raw}n`;
      if (typeof raw === "number" && !Number.isFinite(raw)) return `<${raw}>`;
      if (typeof raw === "function") return `<function ${raw.name || "anonymous"}>`;
      if (typeof raw === "symbol") return `<${raw.toString()}>`;
      if (ArrayBuffer.isView(raw)) {
        const bytes = raw as unknown as ArrayLike<number>;
        return `<${raw.constructor.name} [${Array.from(bytes).join(",")}]>`;
      }
      if (raw instanceof Error) {
        const fields: Record<string, unknown> = { name: raw.name, message: raw.message };
        for (const key of Object.keys(raw)) fields[key] = (raw as unknown as Record<string, unknown>)[key];
        return fields;
      }
      if (raw instanceof Map) return { "<Map>": [...raw.entries()] };
      if (raw instanceof Set) return { "<Set>": [...raw.values()] };
      if (typeof raw === "object" && raw !== null) {
        if (seen.has(raw)) return "<seen before>";
        seen.add(raw);
      }
      return raw;
    });
  } catch {
    return String(value);
  }
}

function tag(value: object): string {
  return Object.prototype.toString.call(value);
}

/** Where `actual` first differs from `expected`, as a path (`$.a[2].b`) and a reason, or `undefined`. */
function difference(
  actual: unknown,
  expected: unknown,
  path: string,
  seen: Map<object, object>,
): string | undefined {
  if (actual === expected) return undefined;
  if (
    typeof actual === "number" &&
    typeof expected === "number" &&
    Number.isNaN(actual) &&
    Number.isNaN(expected)
  )
    return undefined;
  if (typeof actual !== "object" || typeof expected !== "object" || actual === null || expected === null) {
    return `${path}: ${show(actual)} !== ${show(expected)}`;
  }
  if (seen.get(actual) === expected) return undefined;
  seen.set(actual, expected);

  if (tag(actual) !== tag(expected)) return `${path}: ${tag(actual)} is not ${tag(expected)}`;
  const actualProto = Object.getPrototypeOf(actual);
  const expectedProto = Object.getPrototypeOf(expected);
  // Plain objects from another realm (or with a null prototype) are still plain objects.
  const plain = (proto: unknown) => proto === null || proto === Object.prototype;
  if (actualProto !== expectedProto && !(plain(actualProto) && plain(expectedProto))) {
    const name = (proto: { constructor?: { name?: string } } | null) => proto?.constructor?.name ?? "null";
    if (name(actualProto) !== name(expectedProto))
      return `${path}: instance of ${name(actualProto)}, expected ${name(expectedProto)}`;
  }

  if (ArrayBuffer.isView(actual) && ArrayBuffer.isView(expected)) {
    const a = actual as unknown as ArrayLike<unknown>;
    const b = expected as unknown as ArrayLike<unknown>;
    if (a.length !== b.length) return `${path}: length ${a.length} !== ${b.length}`;
    for (let index = 0; index < a.length; index++) {
      if (!Object.is(a[index], b[index])) return `${path}[${index}]: ${show(a[index])} !== ${show(b[index])}`;
    }
    return undefined;
  }
  if (actual instanceof Date && expected instanceof Date) {
    return Object.is(actual.getTime(), expected.getTime())
      ? undefined
      : `${path}: ${actual.toISOString()} !== ${expected.toISOString()}`;
  }
  if (actual instanceof RegExp && expected instanceof RegExp) {
    return String(actual) === String(expected) ? undefined : `${path}: ${actual} !== ${expected}`;
  }
  if (actual instanceof Map && expected instanceof Map) {
    if (actual.size !== expected.size) return `${path}: Map size ${actual.size} !== ${expected.size}`;
    for (const [key, value] of expected) {
      if (!actual.has(key)) return `${path}: Map lacks key ${show(key)}`;
      const inner = difference(actual.get(key), value, `${path}.get(${show(key)})`, seen);
      if (inner) return inner;
    }
    return undefined;
  }
  if (actual instanceof Set && expected instanceof Set) {
    if (actual.size !== expected.size) return `${path}: Set size ${actual.size} !== ${expected.size}`;
    for (const value of expected) if (!actual.has(value)) return `${path}: Set lacks ${show(value)}`;
    return undefined;
  }
  if (Array.isArray(actual) && Array.isArray(expected)) {
    if (actual.length !== expected.length) return `${path}: length ${actual.length} !== ${expected.length}`;
    for (let index = 0; index < expected.length; index++) {
      // A hole and an explicit `undefined` differ, like a missing key and an `undefined` one.
      if (index in actual !== index in expected) return `${path}[${index}]: hole on one side only`;
      const inner = difference(actual[index], expected[index], `${path}[${index}]`, seen);
      if (inner) return inner;
    }
    return undefined;
  }
  if (actual instanceof Error && expected instanceof Error) {
    if (actual.name !== expected.name) return `${path}.name: ${show(actual.name)} !== ${show(expected.name)}`;
    if (actual.message !== expected.message)
      return `${path}.message: ${show(actual.message)} !== ${show(expected.message)}`;
  }

  const actualRecord = actual as Record<string, unknown>;
  const expectedRecord = expected as Record<string, unknown>;
  const actualKeys = Object.keys(actualRecord);
  const expectedKeys = Object.keys(expectedRecord);
  for (const key of expectedKeys) {
    if (!Object.hasOwn(actualRecord, key))
      return `${path}.${key}: missing, expected ${show(expectedRecord[key])}`;
  }
  for (const key of actualKeys) {
    if (!Object.hasOwn(expectedRecord, key))
      return `${path}.${key}: unexpected key with ${show(actualRecord[key])}`;
  }
  for (const key of expectedKeys) {
    const inner = difference(actualRecord[key], expectedRecord[key], `${path}.${key}`, seen);
    if (inner) return inner;
  }
  return undefined;
}

/** True when `actual` and `expected` are structurally equal (see {@link equal}). */
export function isEqual(actual: unknown, expected: unknown): boolean {
  return difference(actual, expected, "$", new Map()) === undefined;
}

/** Fails unless `actual` structurally equals `expected`. */
export function equal<T>(actual: unknown, expected: T, message?: string): asserts actual is T {
  const diff = difference(actual, expected, "$", new Map());
  if (diff === undefined) return;
  throw new AssertionError(
    `${message ? `${message}: ` : ""}values differ at ${diff}\n  actual:   ${show(actual)}\n  expected: ${show(expected)}`,
  );
}

/** Fails unless `value` is truthy. */
export function ok(value: unknown, message?: string): asserts value {
  if (!value) throw new AssertionError(`${message ?? "expected a truthy value"}, got ${show(value)}`);
}

/** Fails with `message`. */
export function fail(message: string): never {
  throw new AssertionError(message);
}

function isErrorClass(predicate: ErrorPredicate): predicate is abstract new (...args: never[]) => Error {
  return (
    typeof predicate === "function" &&
    (predicate === Error || (predicate.prototype !== undefined && predicate.prototype instanceof Error))
  );
}

function check(error: unknown, predicate: ErrorPredicate | undefined, what: string): void {
  if (predicate === undefined) return;
  if (predicate instanceof RegExp) {
    const message = (error as { message?: unknown } | null)?.message;
    if (typeof message !== "string" || !predicate.test(message)) {
      throw new AssertionError(`${what} an error whose message matches ${predicate}, got ${show(error)}`);
    }
    return;
  }
  if (isErrorClass(predicate)) {
    if (!(error instanceof predicate)) {
      throw new AssertionError(`${what} an instance of ${predicate.name}, got ${show(error)}`);
    }
    return;
  }
  let verdict: unknown;
  try {
    verdict = (predicate as (error: unknown) => unknown)(error);
  } catch (inner) {
    if (inner instanceof AssertionError) {
      inner.message = `${what} an error that passes the predicate: ${inner.message}`;
      throw inner;
    }
    throw inner;
  }
  if (verdict === false)
    throw new AssertionError(`${what} an error the predicate accepts, got ${show(error)}`);
}

/** Fails unless the promise (or the promise `fn` returns) rejects, and with an error `predicate` accepts. */
export async function rejects(
  fnOrPromise: Promise<unknown> | (() => unknown),
  predicate?: ErrorPredicate,
): Promise<unknown> {
  let error: unknown;
  try {
    await (typeof fnOrPromise === "function" ? fnOrPromise() : fnOrPromise);
  } catch (caught) {
    error = caught;
    check(error, predicate, "expected a rejection with");
    return error;
  }
  throw new AssertionError("expected a rejection, but it resolved");
}

/** Fails unless `fn` throws synchronously, and an error `predicate` accepts. Returns the error. */
export function throws(fn: () => unknown, predicate?: ErrorPredicate): unknown {
  let result: unknown;
  try {
    result = fn();
  } catch (error) {
    check(error, predicate, "expected a throw of");
    return error;
  }
  if (result instanceof Promise) {
    result.catch(() => {});
    throw new AssertionError(
      "expected a synchronous throw, but the function returned a promise (use rejects)",
    );
  }
  throw new AssertionError("expected a throw, but it returned normally");
}
