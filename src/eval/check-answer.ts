/**
 * The checkers of eval tasks: exact match, `\boxed{}` equality, a JSON Schema, or a function.
 *
 * @module
 */
import type { MessageInput } from "../core/message.ts";
import type { Response } from "../core/response.ts";
import { extractBoxed } from "../substrate/extract-boxed.ts";
import { type JsonSchema, jsonSchemaIssues } from "./json-schema-issues.ts";

/** What a checker sees of one run: the final answer's text, the response, the whole history. */
export interface EvalAnswer {
  /** The last response's text. */
  text: string;
  response: Response;
  /** The run's whole history (the task's messages, every turn and tool result after them). */
  messages: readonly MessageInput[];
  /** The task's id and the route's name. */
  task: string;
  route: string;
}

/** A checker's verdict; `detail` says why it failed (shown in the runs of the report). */
export interface CheckResult {
  pass: boolean;
  detail?: string | undefined;
}

/**
 * How a task's answer is checked:
 * - `{ exact }`: the text equals it (both trimmed unless `trim: false`; `ignoreCase` to compare
 *   case-insensitively);
 * - `{ boxed }`: the last `\boxed{…}` of the text (`extractBoxed`) equals it (trimmed);
 * - `{ jsonSchema }`: the answer (`response.object` under structured output, else the text, a Markdown
 *   code fence around it removed) parses as JSON and conforms to the schema (see `jsonSchemaIssues`);
 * - a function of the {@link EvalAnswer}: `true`/`false` or a {@link CheckResult}. A checker that throws
 *   fails the run with the error kind `checker`.
 */
export type EvalChecker =
  | { exact: string; trim?: boolean; ignoreCase?: boolean }
  | { boxed: string }
  | { jsonSchema: JsonSchema }
  | ((answer: EvalAnswer) => boolean | CheckResult | Promise<boolean | CheckResult>);

/** Longest expected or actual value quoted in a `detail`. */
const QUOTE_CHARS = 80;

/**
 * Checks one answer against a task's checker. A checker that is none of the four shapes throws a
 * `TypeError` naming the fields it has.
 *
 * @example
 * ```ts
 * await checkAnswer({ boxed: "391" }, answer); // { pass: true } when the text ends "… \\boxed{391}"
 * ```
 */
export async function checkAnswer(check: EvalChecker, answer: EvalAnswer): Promise<CheckResult> {
  if (typeof check === "function") {
    const verdict = await check(answer);
    if (typeof verdict === "boolean") return { pass: verdict };
    if (typeof verdict === "object" && verdict !== null && typeof verdict.pass === "boolean") return verdict;
    throw new TypeError(`a function checker returned ${JSON.stringify(verdict)}, not a boolean or { pass }`);
  }
  if (typeof check !== "object" || check === null)
    throw new TypeError("a checker must be an object or a function");
  if ("exact" in check && typeof check.exact === "string") {
    const trim = check.trim ?? true;
    const normal = (text: string) => {
      const trimmed = trim ? text.trim() : text;
      return check.ignoreCase ? trimmed.toLowerCase() : trimmed;
    };
    const pass = normal(answer.text) === normal(check.exact);
    return pass ? { pass } : { pass, detail: `expected ${quote(check.exact)}, got ${quote(answer.text)}` };
  }
  if ("boxed" in check && typeof check.boxed === "string") {
    const boxed = extractBoxed(answer.text);
    if (boxed === undefined) return { pass: false, detail: "no closed \\boxed{} in the answer" };
    const pass = boxed === check.boxed.trim();
    return pass ? { pass } : { pass, detail: `boxed ${quote(boxed)}, expected ${quote(check.boxed.trim())}` };
  }
  if ("jsonSchema" in check && typeof check.jsonSchema === "object" && check.jsonSchema !== null) {
    let value = answer.response.object;
    if (value === undefined) {
      const text = answer.text.trim().replace(/^```[a-zA-Z]*\s*\n([\s\S]*?)\n?```$/, "$1");
      try {
        value = JSON.parse(text);
      } catch {
        return { pass: false, detail: `not JSON: ${quote(answer.text)}` };
      }
    }
    const issues = jsonSchemaIssues(check.jsonSchema, value);
    return issues.length === 0 ? { pass: true } : { pass: false, detail: issues.join("; ") };
  }
  throw new TypeError(
    `a checker has exact, boxed (strings) or jsonSchema (an object), or is a function; got the fields ${Object.keys(check).join(", ") || "none"}`,
  );
}

function quote(text: string): string {
  return JSON.stringify(text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)}…` : text);
}
