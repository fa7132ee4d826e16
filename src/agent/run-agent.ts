/**
 * The agent loop: call a provider, run the tools it asks for, feed the results back, until the model stops
 * calling tools, a limit is hit, or the pause source says stop. Runtime-agnostic: the Worker's task object
 * runs it step by step, a script runs it to the end.
 *
 * @module
 */
import type { CallOptions } from "../core/call-options.ts";
import { collectStream } from "../core/collect-stream.ts";
import { type MessageInput, normalizeMessages, type ToolCall, type ToolResult } from "../core/message.ts";
import type { Provider } from "../core/provider.ts";
import { ProviderError } from "../core/provider-error.ts";
import type { Response } from "../core/response.ts";
import type { StreamEvent } from "../core/stream-event.ts";
import type { ToolSpecInput } from "../core/tool-spec.ts";
import { addUsage, type Usage } from "../core/usage.ts";
import { checkPause } from "../substrate/pause.ts";
import { isToolOutput } from "./tool-output.ts";

/** A tool the agent can run: its spec plus the function that runs it. */
export interface AgentTool extends ToolSpecInput {
  /**
   * Runs the tool. A returned string goes back to the model as is; a `toolOutput(content, { isError })`
   * as its content parts and error flag; anything else as JSON. A thrown error becomes a result with
   * `isError: true` (the model sees the message and can react), not a crash.
   */
  execute(
    args: Record<string, unknown>,
    context: { call: ToolCall; signal: AbortSignal | undefined },
  ): unknown;
}

/**
 * What one compaction did, with the figures it was decided on: the tokens it reclaimed and what the
 * prompt cache is modelled to charge for it (`cacheImpact`). Costs are US dollars, `undefined` where a
 * price is unknown.
 */
export interface CompactionReport {
  /** `"summary"`: the harness replaced older turns; `"provider"`: the provider compacted server-side. */
  strategy: "summary" | "provider";
  /** `"fit"`: the next request was over the threshold; `"cost"`: compacting was cheaper over the horizon. */
  reason: "fit" | "cost" | "provider";
  /** How `tokensBefore` was counted: the provider's token-counting API, your `countTokens`, or an estimate. */
  counted: "provider" | "custom" | "estimate";
  /** The threshold, in tokens. */
  limit: number;
  /** Input tokens of the request before and after the compaction (after: estimated), and the difference. */
  tokensBefore: number;
  tokensAfter: number;
  tokensReclaimed: number;
  /** Messages replaced by the summary (0 for a provider-side compaction). */
  messagesReplaced: number;
  /** Messages before this index are a cached prefix the compaction keeps. */
  divergeAt: number;
  /** Tokens written to the cache again on the next call. */
  rewriteTokens: number;
  /** The modelled cache re-write: `rewriteTokens` at the cache-write price. */
  cacheRewriteCost: number | undefined;
  /** The next call's modelled input cost (kept prefix read, the rest written), then each call's after it. */
  nextCallCost: number | undefined;
  steadyStateCost: number | undefined;
  /** Each call's modelled input cost had nothing been compacted. */
  unchangedCost: number | undefined;
  /** Calls after the next one until the compaction has paid for itself (`cacheImpact.breakEvenCalls`). */
  breakEvenCalls: number | undefined;
  /** The horizon (next K calls) the two paths were compared over, and their modelled costs. */
  horizon: number;
  costIfCompacted: number | undefined;
  costIfKept: number | undefined;
  /** What the summary call cost (its usage at the summarizer's prices), and its usage. */
  summaryCost: number | undefined;
  summaryUsage: Usage;
}

/**
 * A compaction policy for {@link runAgent} (build one with `compaction()` from `modelwire/compaction`).
 * `prepare` runs before every model call and may hand back a shorter history; `observe` sees every
 * response (a provider-side strategy reports what the provider compacted).
 */
export interface AgentCompaction {
  prepare(input: {
    messages: readonly MessageInput[];
    tools: readonly ToolSpecInput[];
    provider: Provider;
    signal: AbortSignal | undefined;
  }): Promise<{ messages: MessageInput[]; report: CompactionReport } | undefined>;
  /** `messages`: the history the response answered (the one `prepare` saw, or handed back). */
  observe?(response: Response, messages?: readonly MessageInput[]): CompactionReport | undefined;
}

/** What the loop reports while it runs. */
export type AgentEvent =
  | { type: "step-start"; step: number }
  | { type: "compaction"; step: number; report: CompactionReport }
  | { type: "compaction-failed"; step: number; error: string }
  | { type: "model-event"; step: number; event: StreamEvent }
  | { type: "model-response"; step: number; response: Response }
  | { type: "tool-results"; step: number; results: ToolResult[] }
  | { type: "paused"; step: number; boundary: "model" | "tools" };

/** How the loop ended. */
export type AgentStatus = "done" | "paused" | "max-steps" | "aborted";

/** The loop's result: everything needed to show the answer, or to resume from where it stopped. */
export interface AgentResult {
  status: AgentStatus;
  /** The full history, the input included; resume by passing it back as `messages`. */
  messages: MessageInput[];
  /** Usage of every model call of this run, added up. */
  usage: Usage;
  /** Model calls made by this run. */
  steps: number;
  /** The last model response, when there was one. */
  response: Response | undefined;
  /**
   * Compactions this run made. When one replaced turns, `messages` is not the input plus new turns: store
   * it whole (the Worker's task object rewrites its stored history then).
   */
  compactions: CompactionReport[];
  /** Compactions that failed (the run went on with the history as it was), one message each. */
  compactionErrors: string[];
}

/** Settings of {@link runAgent}. */
export interface RunAgentOptions {
  provider: Provider;
  tools?: readonly AgentTool[];
  messages: readonly MessageInput[];
  /** Most model calls in this run (default 16). */
  maxSteps?: number;
  /**
   * Checked before every model call and every tool batch. Whatever it returns — a string, a status enum,
   * an object with `status`, a database row — is read by `isStopStatus`: paused, suspended, aborted and the
   * like stop the loop at that boundary.
   */
  pause?: () => unknown;
  signal?: AbortSignal;
  /** Options passed to every model call (`signal` is added). */
  callOptions?: CallOptions;
  onEvent?: (event: AgentEvent) => void;
  /**
   * Keeps the history inside the model's context: before each model call, older turns may be replaced by
   * a `synthetic` summary (`compaction()` from `modelwire/compaction`). Each compaction is a
   * `compaction` event and is listed in `AgentResult.compactions`.
   */
  compaction?: AgentCompaction;
}

/**
 * Runs the agent loop.
 *
 * - Tools the model asks for in one turn run in parallel; each result keeps its call's id.
 * - A tool that throws, or a call naming no known tool, becomes a `ToolResult` with `isError: true`.
 * - A history that ends with an assistant turn whose tool calls have no results (a run paused before its
 *   tool batch) resumes by running those tools first.
 * - An abort returns `status: "aborted"` with the history so far; other provider errors are thrown.
 *
 * @example
 * ```ts
 * const result = await runAgent({ provider, tools: [weather], messages: [{ role: "user", content: "Oslo?" }] });
 * result.status;   // "done"
 * result.messages; // the whole conversation, ready to store and resume
 * ```
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentResult> {
  const tools = options.tools ?? [];
  const maxSteps = options.maxSteps ?? 16;
  let messages: MessageInput[] = [...options.messages];
  let usage: Usage = {};
  let steps = 0;
  let response: Response | undefined;
  const compactions: CompactionReport[] = [];
  const compactionErrors: string[] = [];
  const result = (status: AgentStatus): AgentResult => ({
    status,
    messages,
    usage,
    steps,
    response,
    compactions,
    compactionErrors,
  });
  let stoppedAs: AgentStatus = "paused";
  const paused = async (boundary: "model" | "tools"): Promise<boolean> => {
    if (!options.pause) return false;
    const state = await checkPause(options.pause);
    if (!state.stop) return false;
    // An aborted (or cancelled) source ends the run as aborted; any other stop status pauses it.
    stoppedAs = /^(?:abort|cancel)/i.test(String(state.status ?? "")) ? "aborted" : "paused";
    options.onEvent?.({ type: "paused", step: steps, boundary });
    return true;
  };

  try {
    let pending = unansweredCalls(messages);
    for (;;) {
      if (pending.length > 0) {
        if (await paused("tools")) return result(stoppedAs);
        if (options.signal?.aborted) return result("aborted");
        const results = await runTools(pending, tools, options.signal);
        options.onEvent?.({ type: "tool-results", step: steps, results });
        messages.push({ role: "tool", toolResults: results });
      }
      if (steps >= maxSteps) return result("max-steps");
      if (await paused("model")) return result(stoppedAs);
      if (options.signal?.aborted) return result("aborted");
      if (options.compaction) {
        let compacted: Awaited<ReturnType<AgentCompaction["prepare"]>>;
        try {
          compacted = await options.compaction.prepare({
            messages,
            tools,
            provider: options.provider,
            signal: options.signal,
          });
        } catch (error) {
          if (options.signal?.aborted) return result("aborted");
          // A failed compaction (the summarizer failed or said nothing) leaves the history as it was: the
          // run goes on and says so; a history that does not fit then fails at the provider, as it would.
          const message = error instanceof Error ? error.message : String(error);
          compactionErrors.push(message);
          options.onEvent?.({ type: "compaction-failed", step: steps + 1, error: message });
          compacted = undefined;
        }
        if (options.signal?.aborted) return result("aborted");
        if (compacted) {
          messages = compacted.messages;
          compactions.push(compacted.report);
          options.onEvent?.({ type: "compaction", step: steps + 1, report: compacted.report });
        }
      }
      steps++;
      const step = steps;
      options.onEvent?.({ type: "step-start", step });
      const callOptions: CallOptions = { ...options.callOptions };
      if (options.signal) callOptions.signal = options.signal;
      response = await collectStream(options.provider.stream(messages, tools, callOptions), {
        onEvent: options.onEvent
          ? (event) => options.onEvent?.({ type: "model-event", step, event })
          : undefined,
        source: { provider: options.provider.name, model: options.provider.model },
      });
      options.onEvent?.({ type: "model-response", step, response });
      usage = addUsage(usage, response.usage);
      const serverSide = options.compaction?.observe?.(response, messages);
      if (serverSide) {
        compactions.push(serverSide);
        options.onEvent?.({ type: "compaction", step, report: serverSide });
      }
      messages.push(response.message);
      pending = response.message.toolCalls;
      // A turn the provider paused (Anthropic's `pause_turn`, a compaction that pauses) goes on when sent
      // again; every other turn without tool calls is the answer.
      if (pending.length === 0 && response.stopReason !== "pause") return result("done");
    }
  } catch (error) {
    if ((ProviderError.is(error) && error.kind === "aborted") || options.signal?.aborted)
      return result("aborted");
    throw error;
  }
}

/**
 * Tool calls of the last assistant turn that no later message answers: what a resumed run executes first.
 */
export function unansweredCalls(messages: readonly MessageInput[]): ToolCall[] {
  const normalized = normalizeMessages(messages);
  for (let index = normalized.length - 1; index >= 0; index--) {
    const message = normalized[index]!;
    if (message.role !== "assistant") continue;
    const answered = new Set(
      normalized.slice(index + 1).flatMap((later) => later.toolResults.map((item) => item.callId)),
    );
    return message.toolCalls.filter((call) => !answered.has(call.id));
  }
  return [];
}

async function runTools(
  calls: readonly ToolCall[],
  tools: readonly AgentTool[],
  signal: AbortSignal | undefined,
): Promise<ToolResult[]> {
  return Promise.all(
    calls.map(async (call): Promise<ToolResult> => {
      const tool = tools.find((candidate) => candidate.name === call.name);
      if (!tool)
        return { callId: call.id, name: call.name, content: `Unknown tool "${call.name}"`, isError: true };
      try {
        const value = await tool.execute(call.arguments, { call, signal });
        const output = isToolOutput(value) ? value : undefined;
        const content = output
          ? output.content
          : typeof value === "string"
            ? value
            : value === undefined
              ? ""
              : JSON.stringify(value);
        return { callId: call.id, name: call.name, content, isError: output?.isError === true };
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return { callId: call.id, name: call.name, content: message, isError: true };
      }
    }),
  );
}
