/**
 * Workflow registration (DESIGN.md layer 6): what a named agent task runs. A host registers workflows by
 * name — the Worker's `createWorker({ workflows })` — and a task started with a name runs the agent loop
 * (`runAgent`) with that workflow's route, system prompt, tools and limits, step by step.
 *
 * @module
 */
import type { CallOptions } from "../core/call-options.ts";
import type { AgentCompaction, AgentTool } from "./run-agent.ts";

/** A named workflow: the route it calls, its system prompt, its tools and its limits. */
export interface Workflow {
  /** The provider it calls, by name: the Worker's route (model alias). */
  route: string;
  /** Put first in a new task's history. */
  system?: string;
  tools?: readonly AgentTool[];
  /** Most model calls over the whole task (default 16). */
  maxSteps?: number;
  /** The options of every model call. */
  callOptions?: CallOptions;
  /**
   * Compaction before each step (`compaction()` from `modelwire/compaction`): a step that compacts
   * replaces the task's stored history with the compacted one, in the same transaction as the step.
   */
  compaction?: AgentCompaction;
}
