/**
 * Workflow registration: the named workflows a host sets up at start-up — which provider (or chain) each
 * calls, its system prompt, its tools and its limits — looked up by name per request.
 *
 * @module
 */
import * as z from "zod/mini";
import type { Provider } from "../core/provider.ts";
import { normalizeToolSpecs, type ToolSpecInput } from "../core/tool-spec.ts";
import { ValidationError, validate } from "../core/validation-error.ts";
import { closestName } from "./closest-name.ts";

/** Limits a loop running the workflow enforces. */
export interface WorkflowLimits {
  /** Model calls per run. */
  maxTurns?: number | undefined;
  /** Tool calls per run. */
  maxToolCalls?: number | undefined;
  /** Output tokens per model call. */
  maxTokens?: number | undefined;
  /** Wall-clock time per run, in milliseconds. */
  timeoutMs?: number | undefined;
}

/** A named workflow. */
export interface Workflow {
  /** Unique in its registry. */
  name: string;
  /** The provider it calls: one provider, or a `retry()` / `fallback()` composition. */
  route: Provider;
  system?: string | undefined;
  tools?: readonly ToolSpecInput[] | undefined;
  limits?: WorkflowLimits | undefined;
  description?: string | undefined;
}

const positiveInt = () => z.optional(z.number().check(z.int(), z.positive()));

const WorkflowSchema = z.object({
  name: z.string().check(z.trim(), z.minLength(1)),
  system: z.optional(z.string()),
  description: z.optional(z.string()),
  limits: z.optional(
    z.strictObject({
      maxTurns: positiveInt(),
      maxToolCalls: positiveInt(),
      maxTokens: positiveInt(),
      timeoutMs: positiveInt(),
    }),
  ),
});

/**
 * A registry of named workflows. Registration validates each workflow (a `ValidationError` names the bad
 * field) and refuses a name already taken; registered workflows are frozen.
 *
 * @example
 * ```ts
 * const workflows = new WorkflowRegistry();
 * workflows.register({
 *   name: "triage",
 *   route: fallback([{ provider: claude }, { provider: gpt }]),
 *   system: "Sort the ticket into one of: bug, question, feature.",
 *   tools: [lookupTicket],
 *   limits: { maxTurns: 4, maxTokens: 1024 },
 * });
 * const triage = workflows.getOrThrow("triage");
 * await triage.route.complete([{ role: "system", content: triage.system }, ...history], triage.tools);
 * ```
 */
export class WorkflowRegistry {
  private readonly byName = new Map<string, Workflow>();

  constructor(workflows: readonly Workflow[] = []) {
    for (const workflow of workflows) this.register(workflow);
  }

  /** Adds a workflow and returns its frozen copy. A name already registered is a `ValidationError`. */
  register(workflow: Workflow): Workflow {
    const checked = validate(WorkflowSchema, workflow, "workflow");
    const route = workflow.route as Partial<Provider> | undefined;
    if (typeof route?.complete !== "function" || typeof route.stream !== "function") {
      throw new ValidationError([{ path: "workflow.route", message: "must be a Provider" }]);
    }
    if (this.byName.has(checked.name)) {
      throw new ValidationError([
        { path: "workflow.name", message: `a workflow named "${checked.name}" is already registered` },
      ]);
    }
    const tools = workflow.tools ? [...workflow.tools] : undefined;
    try {
      normalizeToolSpecs(tools);
    } catch (error) {
      if (!ValidationError.is(error)) throw error;
      throw new ValidationError(
        error.issues.map((issue) => ({ path: `workflow.${issue.path || "tools"}`, message: issue.message })),
      );
    }
    const registered: Workflow = { name: checked.name, route: workflow.route };
    if (checked.system !== undefined) registered.system = checked.system;
    if (checked.description !== undefined) registered.description = checked.description;
    if (tools) registered.tools = Object.freeze(tools);
    if (checked.limits) registered.limits = Object.freeze({ ...checked.limits });
    Object.freeze(registered);
    this.byName.set(registered.name, registered);
    return registered;
  }

  /** The workflow called `name`, or `undefined`. */
  get(name: string): Workflow | undefined {
    return this.byName.get(name);
  }

  /** The workflow called `name`; an unknown name is a `ValidationError` suggesting the closest one. */
  getOrThrow(name: string): Workflow {
    const workflow = this.byName.get(name);
    if (workflow) return workflow;
    const suggestion = closestName(String(name), [...this.byName.keys()]);
    throw new ValidationError([
      {
        path: "workflow",
        message:
          `no workflow named ${JSON.stringify(name)}` +
          (suggestion ? `; did you mean "${suggestion}"?` : "") +
          ` (registered: ${[...this.byName.keys()].join(", ") || "none"})`,
      },
    ]);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** Every workflow, in registration order. */
  list(): Workflow[] {
    return [...this.byName.values()];
  }
}
