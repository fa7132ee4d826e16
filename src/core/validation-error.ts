/**
 * The error for bad input at a trust boundary (HTTP bodies, stored history, config, tool specs): it names
 * every bad field by its path, so the caller can fix the value without guessing.
 *
 * @module
 */
import * as z from "zod/mini";

/** One problem with a value: where it is (`messages[1].toolCalls[0].id`) and what is wrong. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** Bad input. `issues` lists every bad field; `message` starts with the first. */
export class ValidationError extends Error {
  override readonly name = "ValidationError";
  readonly issues: readonly ValidationIssue[];

  constructor(issues: readonly ValidationIssue[]) {
    const first = issues[0];
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
    super(first ? `${first.path || "value"}: ${first.message}${more}` : "invalid value");
    this.issues = issues;
  }

  /** True for a `ValidationError` from any copy of this package. */
  static is(error: unknown): error is ValidationError {
    return (
      error instanceof ValidationError || (error as { name?: unknown } | null)?.name === "ValidationError"
    );
  }
}

/** `["messages", 1, "toolCalls", 0, "id"]` → `messages[1].toolCalls[0].id`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = "";
  for (const key of path) {
    if (typeof key === "number") text += `[${key}]`;
    else text += text ? `.${String(key)}` : String(key);
  }
  return text;
}

/**
 * Validates `value` against a zod schema and returns the parsed value, or throws a {@link ValidationError}
 * whose paths start with `root`.
 */
export function validate<S extends z.ZodMiniType>(schema: S, value: unknown, root = ""): z.output<S> {
  const result = z.safeParse(schema, value);
  if (result.success) return result.data;
  throw new ValidationError(
    result.error.issues.map((issue) => ({
      path: formatPath([...(root ? [root] : []), ...issue.path]),
      message: issue.message,
    })),
  );
}
