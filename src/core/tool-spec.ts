/**
 * Tool definitions: a name, a description and a JSON Schema for the arguments. The schema may be given
 * as plain JSON Schema or as any schema that describes itself as JSON Schema (Standard JSON Schema: classic
 * zod 4 schemas do), converted once. zod/mini schemas carry no JSON Schema of their own: pass
 * `z.toJSONSchema(schema)`.
 *
 * @module
 */
import { ValidationError } from "./validation-error.ts";

/** A JSON Schema object (the subset the providers accept is the provider's business). */
export type JsonSchema = { [key: string]: unknown };

/** A tool the model may call, with its arguments described as JSON Schema. */
export interface ToolSpec {
  name: string;
  description?: string;
  /** JSON Schema of the arguments object. */
  parameters: JsonSchema;
  /** Ask the provider to enforce the schema exactly, where it can (OpenAI `strict`). */
  strict?: boolean;
}

/** A schema that can describe itself as JSON Schema (Standard JSON Schema, as zod 4 implements it). */
interface StandardJsonSchemaLike {
  "~standard": { jsonSchema: { input(options: { target: string }): JsonSchema } };
}

/** A tool as callers may write it: `parameters` may be JSON Schema or a classic zod schema. */
export interface ToolSpecInput {
  name: string;
  description?: string;
  parameters?: JsonSchema | StandardJsonSchemaLike;
  strict?: boolean;
}

/** Names every provider accepts: Anthropic and OpenAI both allow `^[a-zA-Z0-9_-]{1,64}$`. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Checks tool specs and converts zod parameters to JSON Schema. Throws a `ValidationError` naming the bad
 * field (`tools[1].name: …`) for a name providers reject, a duplicate name, or parameters that are not an
 * object schema.
 */
export function normalizeToolSpecs(tools: readonly ToolSpecInput[] | undefined): ToolSpec[] {
  if (!tools) return [];
  const seen = new Set<string>();
  return tools.map((tool, index) => {
    const path = `tools[${index}]`;
    if (typeof tool?.name !== "string" || !TOOL_NAME.test(tool.name)) {
      throw new ValidationError([
        {
          path: `${path}.name`,
          message: `must match ${TOOL_NAME.source}, got ${JSON.stringify(tool?.name)}`,
        },
      ]);
    }
    if (seen.has(tool.name)) {
      throw new ValidationError([{ path: `${path}.name`, message: `duplicate tool name "${tool.name}"` }]);
    }
    seen.add(tool.name);
    const parameters = toJsonSchema(tool.parameters, `${path}.parameters`);
    const spec: ToolSpec = { name: tool.name, parameters };
    if (tool.description !== undefined) spec.description = tool.description;
    if (tool.strict !== undefined) spec.strict = tool.strict;
    return spec;
  });
}

function toJsonSchema(parameters: ToolSpecInput["parameters"], path: string): JsonSchema {
  if (parameters === undefined) return { type: "object", properties: {} };
  let schema: unknown = parameters;
  if (isStandardJsonSchema(parameters)) {
    schema = parameters["~standard"].jsonSchema.input({ target: "draft-2020-12" });
  } else if (isSchemaObject(parameters)) {
    // A validator without a JSON Schema of its own (zod/mini is one): converting it here would put zod's
    // whole JSON Schema generator (~20 KB) into every bundle. The caller converts it once instead.
    throw new ValidationError([
      {
        path,
        message: "has no JSON Schema of its own (zod/mini): pass z.toJSONSchema(schema)",
      },
    ]);
  }
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new ValidationError([{ path, message: "must be a JSON Schema object or a zod schema" }]);
  }
  const { $schema: _dialect, ...rest } = schema as JsonSchema;
  if (rest.type !== undefined && rest.type !== "object") {
    throw new ValidationError([
      {
        path: `${path}.type`,
        message: `tool arguments must be an object schema, got ${JSON.stringify(rest.type)}`,
      },
    ]);
  }
  return rest;
}

function isStandardJsonSchema(value: unknown): value is StandardJsonSchemaLike {
  const standard = (value as { "~standard"?: { jsonSchema?: { input?: unknown } } })["~standard"];
  return typeof standard?.jsonSchema?.input === "function";
}

function isSchemaObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && ("_zod" in value || "~standard" in value);
}
