/**
 * What every converted client dialect (`/v1/chat/completions`, `/v1/messages`, `/v1/responses`) does with
 * a request's fields, written once: the fields it refuses unless they hold their default, a content part
 * read through the neutral schema with its problems named at the client's own field, and the OpenAI
 * dialects' reasoning effort as `thinking`.
 *
 * @module
 */
import * as z from "zod/mini";
import type { Thinking } from "../core/call-options.ts";
import type { ContentPart } from "../core/content.ts";
import { ContentPartSchema } from "../core/content-schema.ts";
import { issuesOf, type ValidationIssue } from "../core/validation-error.ts";

/** Why a refused field's value is refused, or undefined when it holds its default; by field name. */
export type FieldRefusals = Readonly<Record<string, (value: unknown) => string | undefined>>;

/** The schema entries of refused fields: any value is read, and {@link refusalIssues} judges it. */
export function refusedFieldSchemas(
  refusals: FieldRefusals,
): Record<string, z.ZodMiniOptional<z.ZodMiniUnknown>> {
  return Object.fromEntries(Object.keys(refusals).map((field) => [field, z.optional(z.unknown())]));
}

/** An issue naming each refused field of `request` that holds something other than its default (or null). */
export function refusalIssues(request: object, refusals: FieldRefusals): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const fields = request as Record<string, unknown>;
  for (const [field, reason] of Object.entries(refusals)) {
    const value = fields[field];
    if (value === undefined || value === null) continue;
    const message = reason(value);
    if (message !== undefined) issues.push({ path: field, message });
  }
  return issues;
}

/**
 * `part` through the neutral schema (which reads a data: URL as inline data), or undefined with its
 * problems pushed onto `issues`: named at `field`, a bad file name at `filenamePath` when the dialect has
 * a field for it.
 */
export function checkedPart(
  part: ContentPart,
  field: string,
  issues: ValidationIssue[],
  filenamePath: string = field,
): ContentPart | undefined {
  const result = z.safeParse(ContentPartSchema, part);
  if (result.success) return result.data;
  for (const issue of issuesOf(result.error.issues)) {
    issues.push({ path: issue.path.endsWith("filename") ? filenamePath : field, message: issue.message });
  }
  return undefined;
}

/**
 * The OpenAI dialects' reasoning effort (Chat Completions' `reasoning_effort`, Responses' `reasoning.effort`)
 * as `thinking`: `none` is off, `xhigh` and `max` are the most there is.
 */
export function thinkingOfEffort(
  effort: "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max",
): Thinking {
  if (effort === "none") return "off";
  if (effort === "xhigh" || effort === "max") return { effort: "max" };
  return { effort };
}
