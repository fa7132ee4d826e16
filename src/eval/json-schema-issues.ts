/**
 * A small JSON Schema checker for eval answers: the keywords an answer format is written with.
 *
 * @module
 */

/** The JSON Schema keywords {@link jsonSchemaIssues} checks; others are refused, never ignored. */
export interface JsonSchema {
  type?: JsonType | readonly JsonType[];
  properties?: Readonly<Record<string, JsonSchema>>;
  required?: readonly string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  enum?: readonly unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  anyOf?: readonly JsonSchema[];
  description?: string;
  title?: string;
}

type JsonType = "object" | "array" | "string" | "number" | "integer" | "boolean" | "null";

const KNOWN = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "minItems",
  "maxItems",
  "enum",
  "const",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "anyOf",
  "description",
  "title",
  "$schema",
]);

/** Deepest schema or value nesting checked; deeper is an issue, not a stack overflow. */
const MAX_DEPTH = 64;
/** Most issues listed. */
const MAX_ISSUES = 20;

/**
 * Where `value` breaks `schema` (a JSON Schema subset: `type`, `properties`, `required`,
 * `additionalProperties`, `items`, `minItems`/`maxItems`, `enum`, `const`, `minimum`/`maximum`,
 * `minLength`/`maxLength`, `pattern`, `anyOf`), each issue as `path: message` (`$` is the value itself);
 * empty when it conforms. A keyword it does not know throws a `TypeError` naming it — a check that
 * silently ignored part of a schema would pass wrong answers.
 *
 * @example
 * ```ts
 * jsonSchemaIssues({ type: "object", required: ["age"] }, { name: "Ada" }); // ["$: missing required property age"]
 * ```
 */
export function jsonSchemaIssues(schema: JsonSchema, value: unknown): string[] {
  const issues: string[] = [];
  check(schema, value, "$", 0, issues, "schema");
  return issues.slice(0, MAX_ISSUES);
}

function check(
  schema: JsonSchema,
  value: unknown,
  path: string,
  depth: number,
  issues: string[],
  at: string,
): void {
  if (issues.length >= MAX_ISSUES) return;
  if (depth > MAX_DEPTH) {
    issues.push(`${path}: nested deeper than ${MAX_DEPTH}`);
    return;
  }
  if (typeof schema !== "object" || schema === null || Array.isArray(schema))
    throw new TypeError(`jsonSchemaIssues: ${at} must be a schema object`);
  for (const key of Object.keys(schema))
    if (!KNOWN.has(key)) throw new TypeError(`jsonSchemaIssues: ${at}.${key} is not a supported keyword`);
  if (schema.type !== undefined) {
    const types = typeof schema.type === "string" ? [schema.type] : schema.type;
    if (!types.some((type) => isType(value, type))) {
      issues.push(`${path}: expected ${types.join(" or ")}, got ${typeName(value)}`);
      return;
    }
  }
  if (schema.const !== undefined && !sameJson(value, schema.const))
    issues.push(`${path}: expected ${JSON.stringify(schema.const)}`);
  if (schema.enum !== undefined && !schema.enum.some((option) => sameJson(value, option)))
    issues.push(`${path}: expected one of ${JSON.stringify(schema.enum)}`);
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum)
      issues.push(`${path}: below ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum)
      issues.push(`${path}: above ${schema.maximum}`);
  }
  if (typeof value === "string") {
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength)
      issues.push(`${path}: shorter than ${schema.minLength}`);
    if (schema.maxLength !== undefined && length > schema.maxLength)
      issues.push(`${path}: longer than ${schema.maxLength}`);
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(value))
      issues.push(`${path}: does not match ${schema.pattern}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems)
      issues.push(`${path}: fewer than ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems)
      issues.push(`${path}: more than ${schema.maxItems} items`);
    if (schema.items !== undefined)
      value.forEach((item, index) => {
        check(schema.items!, item, `${path}[${index}]`, depth + 1, issues, `${at}.items`);
      });
  }
  if (isObject(value)) {
    for (const name of schema.required ?? [])
      if (!Object.hasOwn(value, name)) issues.push(`${path}: missing required property ${name}`);
    const properties = schema.properties ?? {};
    for (const [name, item] of Object.entries(value)) {
      const child = `${path}.${name}`;
      const own = Object.hasOwn(properties, name) ? properties[name] : undefined;
      if (own !== undefined) check(own, item, child, depth + 1, issues, `${at}.properties.${name}`);
      else if (schema.additionalProperties === false) issues.push(`${child}: not allowed`);
      else if (typeof schema.additionalProperties === "object")
        check(schema.additionalProperties, item, child, depth + 1, issues, `${at}.additionalProperties`);
    }
  }
  if (schema.anyOf !== undefined) {
    const fits = schema.anyOf.some((option, index) => {
      const inner: string[] = [];
      check(option, value, path, depth + 1, inner, `${at}.anyOf[${index}]`);
      return inner.length === 0;
    });
    if (!fits) issues.push(`${path}: matches none of anyOf`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isType(value: unknown, type: JsonType): boolean {
  switch (type) {
    case "object":
      return isObject(value);
    case "array":
      return Array.isArray(value);
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    default:
      throw new TypeError(`jsonSchemaIssues: unknown type ${JSON.stringify(type)}`);
  }
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function sameJson(a: unknown, b: unknown): boolean {
  return stable(a) === stable(b);
}

function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(",")}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stable(value[key])}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "undefined";
}
