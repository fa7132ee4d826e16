/**
 * Structured output, the part every protocol shares: a `responseFormat` prepared once (a Standard Schema
 * turned into JSON Schema, a name, strictness), and the answer read back into `Response.object` — parsed
 * as JSON and, when a Standard Schema was given, validated by it. Each protocol maps the prepared format to
 * its API's native form (OpenAI `response_format` / `text.format`, Anthropic `output_config.format`, a
 * forced tool where a model has no native form); a protocol that uses a forced tool turns the tool call
 * back into the answer's text, so that this step sees text like any other.
 *
 * @module
 */
import type { ResponseFormat, StandardSchemaLike } from "./call-options.ts";
import { contentText } from "./content.ts";
import type { Response } from "./response.ts";
import { type JsonSchema, jsonSchemaOf } from "./tool-spec.ts";
import { ValidationError, type ValidationIssue } from "./validation-error.ts";

/** A {@link ResponseFormat} ready for a protocol to map: always JSON Schema, with its name and strictness. */
export type PreparedResponseFormat =
  | { type: "json" }
  | {
      type: "json_schema";
      name: string;
      schema: JsonSchema;
      strict: boolean;
      description?: string | undefined;
      /** The Standard Schema the caller gave, which validates the answer. */
      validator?: StandardSchemaLike | undefined;
    };

/** The answer of a call with `responseFormat` was not the JSON asked for. `response` keeps the raw text. */
export class StructuredOutputError extends Error {
  override readonly name = "StructuredOutputError";
  /** The whole response, its text as the model wrote it. */
  readonly response: Response;
  /** What the Standard Schema said, path by path, when the JSON did not match it. */
  readonly issues: readonly ValidationIssue[];

  constructor(message: string, response: Response, issues: readonly ValidationIssue[] = []) {
    super(message);
    this.response = response;
    this.issues = issues;
  }

  /** True for a `StructuredOutputError` from any copy of this package. */
  static is(error: unknown): error is StructuredOutputError {
    return (
      error instanceof StructuredOutputError ||
      (error as { name?: unknown } | null)?.name === "StructuredOutputError"
    );
  }
}

/**
 * Prepares `format` (the `responseFormat` call option): a zod or other Standard Schema becomes JSON
 * Schema (its output side) and is kept to validate the answer; the name defaults to `"output"`, `strict`
 * to true. The schema must describe an object (every API requires it at the root). A bad format is a
 * `ValidationError` naming `responseFormat.*`.
 */
export function prepareResponseFormat(
  format: ResponseFormat | undefined,
): PreparedResponseFormat | undefined {
  if (format === undefined) return undefined;
  if (format.type === "json") return { type: "json" };
  if (format.type !== "json_schema") {
    throw new ValidationError([{ path: "responseFormat.type", message: 'expected "json" or "json_schema"' }]);
  }
  const schema = jsonSchemaOf(format.schema, "responseFormat.schema", "output");
  if (schema.type !== undefined && schema.type !== "object") {
    throw new ValidationError([
      {
        path: "responseFormat.schema.type",
        message: `structured output must be an object schema, got ${JSON.stringify(schema.type)}`,
      },
    ]);
  }
  const name = format.name ?? "output";
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
    throw new ValidationError([{ path: "responseFormat.name", message: "must match [a-zA-Z0-9_-]{1,64}" }]);
  }
  const validator = isStandardSchema(format.schema) ? format.schema : undefined;
  return {
    type: "json_schema",
    name,
    schema,
    strict: format.strict ?? true,
    ...(format.description === undefined ? {} : { description: format.description }),
    ...(validator ? { validator } : {}),
  };
}

/**
 * `response` with `object` set: its text parsed as JSON and validated by the format's Standard Schema,
 * if any. A refusal (`response.refusal`, or a `content-filter` stop) carries no object and is returned as
 * it is, and so is a turn that only calls tools (no text: a step of the agent loop). Text that is not JSON, or JSON the schema rejects, is a {@link StructuredOutputError} keeping the
 * response (and so the raw text).
 */
export async function readStructuredOutput(
  response: Response,
  format: PreparedResponseFormat | undefined,
): Promise<Response> {
  if (format === undefined) return response;
  if (response.refusal !== undefined || response.stopReason === "content-filter") return response;
  const text = contentText(response.message.content);
  // A turn that only calls tools is a step of the agent loop, not the answer: no object yet.
  if (response.message.toolCalls.length > 0 && text.trim() === "") return response;
  let value: unknown;
  try {
    value = JSON.parse(unfenced(text));
  } catch (error) {
    const cut = response.stopReason === "length" ? " (the answer was cut at the output limit)" : "";
    throw new StructuredOutputError(
      `${response.provider}: the answer is not JSON${cut}: ${(error as Error).message}`,
      response,
    );
  }
  if (format.type === "json_schema" && format.validator) {
    const result = (await format.validator["~standard"].validate(value)) as {
      value?: unknown;
      issues?: readonly { message: string; path?: readonly (PropertyKey | { key: PropertyKey })[] }[];
    };
    if (result.issues) {
      const issues = result.issues.map((issue) => ({
        path: (issue.path ?? []).map((key) => String(typeof key === "object" ? key.key : key)).join("."),
        message: issue.message,
      }));
      const first = issues[0];
      throw new StructuredOutputError(
        `${response.provider}: the answer does not match the schema${first ? ` (${first.path || "value"}: ${first.message})` : ""}`,
        response,
        issues,
      );
    }
    value = result.value;
  }
  return { ...response, object: value };
}

/** A JSON answer a model wrapped in a Markdown code fence, unwrapped; anything else as it is. */
function unfenced(text: string): string {
  const match = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text);
  return match ? match[1]! : text;
}

function isStandardSchema(value: unknown): value is StandardSchemaLike {
  const standard = (value as { "~standard"?: { validate?: unknown } } | null)?.["~standard"];
  return typeof standard?.validate === "function";
}
