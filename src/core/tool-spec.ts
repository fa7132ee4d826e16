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
  "~standard": {
    jsonSchema: {
      input(options: { target: string }): JsonSchema;
      output?(options: { target: string }): JsonSchema;
    };
  };
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
  const schema = jsonSchemaOf(parameters, path, "input");
  if (schema.type !== undefined && schema.type !== "object") {
    throw new ValidationError([
      {
        path: `${path}.type`,
        message: `tool arguments must be an object schema, got ${JSON.stringify(schema.type)}`,
      },
    ]);
  }
  return schema;
}

/**
 * A JSON Schema from what a caller gave: a JSON Schema object as it is (without its `$schema` dialect
 * line), or a schema that describes itself as one (Standard JSON Schema: zod 4 classic), converted by its
 * own `input` or `output` JSON Schema. A validator without a JSON Schema (zod/mini) is a `ValidationError`
 * naming `path`: converting it here would put zod's JSON Schema generator (~20 KB) into every bundle.
 */
export function jsonSchemaOf(value: unknown, path: string, direction: "input" | "output"): JsonSchema {
  let schema: unknown = value;
  if (isStandardJsonSchema(value)) {
    const described = value["~standard"].jsonSchema;
    schema = (direction === "output" && described.output ? described.output : described.input).call(
      described,
      {
        target: "draft-2020-12",
      },
    );
  } else if (isSchemaObject(value)) {
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
  return rest;
}

function isStandardJsonSchema(value: unknown): value is StandardJsonSchemaLike {
  const standard = (value as { "~standard"?: { jsonSchema?: { input?: unknown } } })["~standard"];
  return typeof standard?.jsonSchema?.input === "function";
}

function isSchemaObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && ("_zod" in value || "~standard" in value);
}
