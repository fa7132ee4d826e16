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
  throw new ValidationError(issuesOf(result.error.issues, root));
}

/** What zod reports, as much of it as {@link issuesOf} reads. */
type ZodIssue = z.core.$ZodIssue;

/**
 * Zod issues as {@link ValidationIssue}s a person can act on: the path of the bad field, and what is wrong
 * with it. zod/mini ships no messages ("Invalid input"), so they are written here from the issue: an
 * unknown field is named (`options.bogus: unknown field`), a wrong type says what was expected, a bound
 * says which, a choice lists the values it takes. Messages given in the schema are kept.
 */
export function issuesOf(issues: readonly ZodIssue[], root = ""): ValidationIssue[] {
  const prefix: PropertyKey[] = root ? [root] : [];
  return issues.flatMap((issue): ValidationIssue[] => {
    const path = [...prefix, ...issue.path];
    if (issue.code === "invalid_union") {
      // The branch the value was meant for (it has the branch's type and the fewest problems) says best
      // what is wrong: `content[0].mediaType: …` rather than `content: expected string or array`.
      const meant = meantBranch(issue.errors);
      if (meant) return issuesOf(meant, formatPath(path));
    }
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        path: formatPath([...path, key]),
        message: `unknown field "${key}"`,
      }));
    }
    return [{ path: formatPath(path), message: describeIssue(issue) }];
  });
}

/** Of a union's branches, the one whose type the value has and whose problems are fewest; undefined if none. */
function meantBranch(branches: readonly (readonly ZodIssue[])[]): readonly ZodIssue[] | undefined {
  let best: readonly ZodIssue[] | undefined;
  for (const branch of branches) {
    const wrongType = branch.some(
      (inner) => inner.path.length === 0 && (inner.code === "invalid_type" || inner.code === "invalid_value"),
    );
    if (wrongType || branch.length === 0) continue;
    if (!best || branch.length < best.length) best = branch;
  }
  return best;
}

function describeIssue(issue: ZodIssue): string {
  if (issue.message && issue.message !== "Invalid input") return issue.message;
  switch (issue.code) {
    case "invalid_type":
      // zod calls a record "record" and omits what it got unless asked to report input.
      return `expected ${issue.expected === "record" ? "object" : issue.expected}${"input" in issue ? `, got ${kindOf(issue.input)}` : ""}`;
    case "invalid_value":
      return `expected ${issue.values.map((value) => JSON.stringify(value)).join(" or ")}`;
    case "too_big":
      return `${issue.inclusive === false ? "less than" : "at most"} ${String(issue.maximum)}${unit(issue.origin)}`;
    case "too_small":
      return `${issue.inclusive === false ? "greater than" : "at least"} ${String(issue.minimum)}${unit(issue.origin)}`;
    case "invalid_format":
      return `not a valid ${issue.format}`;
    case "not_multiple_of":
      return `must be a multiple of ${String(issue.divisor)}`;
    case "invalid_union": {
      // The expectations of the union's branches, e.g. `expected "off" or "adaptive" or object`.
      const expected = issue.errors
        .flatMap((branch) => branch.filter((inner) => inner.path.length === 0))
        .flatMap((inner) =>
          inner.code === "invalid_value"
            ? inner.values.map((value) => JSON.stringify(value))
            : inner.code === "invalid_type"
              ? [inner.expected]
              : [],
        );
      return expected.length > 0
        ? `expected ${[...new Set(expected)].join(" or ")}`
        : "matches none of the allowed forms";
    }
    case "invalid_key":
      return "invalid key";
    case "invalid_element":
      return "invalid element";
    default:
      return "invalid value";
  }
}

function unit(origin: string): string {
  if (origin === "string") return " characters";
  if (origin === "array" || origin === "set") return " items";
  return "";
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}
