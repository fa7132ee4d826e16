/**
 * Reading a request, the same way on every route: the JSON body (with a depth limit), the `x-session-id`
 * header, integer query parameters; and the two small waits the routes need: an abort that follows the
 * client, a sleep an abort cuts short.
 *
 * @module
 */
import type { Context } from "hono";
import { SessionIdSchema } from "../core/call-options.ts";
import { ValidationError, validate } from "../core/validation-error.ts";
import type { Gateway } from "./env.ts";

/** Deepest nesting of arrays and objects accepted in a request body (tool arguments included). */
export const MAX_JSON_DEPTH = 64;

/** The request body as JSON: a 400 naming `body` when it is not JSON or is nested deeper than {@link MAX_JSON_DEPTH}. */
export async function jsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ValidationError([{ path: "body", message: "not JSON" }]);
  }
  const deep = tooDeep(value, MAX_JSON_DEPTH);
  if (deep !== undefined) {
    throw new ValidationError([
      { path: deep || "body", message: `nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects` },
    ]);
  }
  // Kept for the admission of a key's request (its token estimate: `keys/estimate.ts`).
  (c as Context<Gateway>).set("body", { text, value });
  return value;
}

/**
 * The path of the first value nested deeper than `limit`, or undefined. Iterative: a hostile body must not
 * overflow the stack of the check meant to stop it.
 */
function tooDeep(value: unknown, limit: number): string | undefined {
  const stack: { value: unknown; depth: number; path: string }[] = [{ value, depth: 0, path: "" }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item.value !== "object" || item.value === null) continue;
    if (item.depth >= limit) return item.path;
    if (Array.isArray(item.value)) {
      item.value.forEach((child, index) => {
        stack.push({ value: child, depth: item.depth + 1, path: `${item.path}[${index}]` });
      });
    } else {
      for (const [key, child] of Object.entries(item.value)) {
        stack.push({ value: child, depth: item.depth + 1, path: item.path ? `${item.path}.${key}` : key });
      }
    }
  }
  return undefined;
}

/** The `x-session-id` header, validated like a body's `sessionId` (a 400 naming the header otherwise). */
export function headerSessionId(c: Context): string | undefined {
  const value = c.req.header("x-session-id");
  return value === undefined ? undefined : validate(SessionIdSchema, value, "x-session-id");
}

/** A non-negative integer from a query parameter or header, or a 400 naming it. */
export function integerParam(
  value: string | undefined,
  name: string,
  min: number,
  max: number,
  fallback: number,
): number {
  if (value === undefined || value === "") return fallback;
  const number = /^\d{1,16}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    throw new ValidationError([{ path: name, message: `must be an integer from ${min} to ${max}` }]);
  }
  return number;
}

/**
 * An abort controller for the upstream call that also fires when the client goes away (the request's
 * signal, with the `enable_request_signal` compatibility flag) — before the first event as well as after.
 */
export function linkedAbort(signal: AbortSignal | undefined): AbortController {
  const controller = new AbortController();
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  return controller;
}

/** Waits `ms`, or less when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
