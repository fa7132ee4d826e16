/**
 * Neutral stream events as the Messages API's SSE grammar, for converted routes:
 *
 * ```
 * message_start  (content_block_start content_block_delta* content_block_stop)*  message_delta  message_stop
 * ```
 *
 * Every frame has its `event:` line and a `type` equal to it; no event type the API does not define is
 * sent (`@ai-sdk/anthropic` refuses unknown ones). Blocks are sent one after the other, indexed by their
 * place in the final `content`: text (`text_delta`), reasoning as a `thinking` block (`thinking_delta`,
 * signature `""`), tool calls as `tool_use` blocks (`input_json_delta`), and last, when the route's native
 * turn holds reasoning, a `thinking` block with empty text whose `signature_delta` is the reasoning
 * envelope — only known once the answer is complete, hence its place (see `messages-answer.ts`).
 *
 * A tool call's block stays open until the call ends: what arrives meanwhile for other blocks (a second
 * call, text) waits and follows in order, so no block is ever reopened and no argument piece is lost.
 *
 * Usage: `message_start` carries what the route reported before its first content (most routes report
 * input only at the end: `input_tokens` is then `0` there, as a placeholder); `message_delta` carries the
 * final counts, cumulative — `input_tokens`, cache reads and writes `null` when the route did not report
 * them, `output_tokens` `0` (the API's schema requires a number) with a warning. Warnings found only once
 * the answer is complete ride as a `warnings` list on `message_delta` (clients ignore unknown fields).
 *
 * @module
 */
import type { ToolCall } from "../../core/message.ts";
import type { Response as ModelResponse } from "../../core/response.ts";
import type { StreamEvent } from "../../core/stream-event.ts";
import { StructuredOutputError } from "../../core/structured-output.ts";
import type { Usage } from "../../core/usage.ts";
import type { Frame } from "../write-sse.ts";
import {
  answerText,
  anthropicStopReasonOf,
  anthropicUsageOf,
  envelopeOf,
  messageId,
} from "./messages-answer.ts";

/** An SSE frame of the Messages grammar: `event:` and its JSON (whose `type` is the same). */
function frame(type: string, data: Record<string, unknown>): Frame {
  return { event: type, data: { type, ...data } };
}

/** What one converted stream answers as: the model name the client asked for and the canonical route. */
export interface MessageStreamContext {
  model: string;
  route: string;
}

interface ToolState {
  block: number;
  sent: string;
  ended: boolean;
}

/**
 * Neutral events → Messages SSE frames. `events` ends with `done` or throws (the gateway's streams do);
 * a failure is thrown on, after the frames before it, and the route ends the body with `event: error`.
 */
export async function* anthropicFramesOf(
  events: AsyncIterable<StreamEvent>,
  context: MessageStreamContext,
): AsyncGenerator<Frame, void, undefined> {
  const out: Frame[] = [];
  let blocks = 0;
  let open: { kind: "text" | "thinking" | "tool"; index: number; tool?: number } | undefined;
  const tools = new Map<number, ToolState>();
  const waiting: StreamEvent[] = [];
  let usage: Usage = {};
  let started = false;
  let textSent = false;

  const close = () => {
    if (open === undefined) return;
    out.push(frame("content_block_stop", { index: open.index }));
    open = undefined;
  };
  const start = (kind: "text" | "thinking" | "tool", block: Record<string, unknown>, tool?: number) => {
    close();
    open = { kind, index: blocks++, ...(tool === undefined ? {} : { tool }) };
    out.push(frame("content_block_start", { index: open.index, content_block: block }));
    return open.index;
  };
  const delta = (index: number, value: Record<string, unknown>) => {
    out.push(frame("content_block_delta", { index, delta: value }));
  };
  const endTool = (index: number, call: ToolCall | undefined) => {
    const tool = tools.get(index);
    if (tool === undefined || tool.ended) return;
    tool.ended = true;
    if (tool.sent === "" && call !== undefined && Object.keys(call.arguments).length > 0) {
      const json = JSON.stringify(call.arguments);
      tool.sent = json;
      delta(tool.block, { type: "input_json_delta", partial_json: json });
    }
    if (open?.kind === "tool" && open.tool === index) close();
  };
  /** An open tool call that has not ended holds every other block back. */
  const blocked = (event: StreamEvent) => {
    if (open?.kind !== "tool" || tools.get(open.tool!)?.ended) return false;
    if ((event.type === "tool-call-delta" || event.type === "tool-call-end") && event.index === open.tool)
      return false;
    return event.type !== "usage" && event.type !== "done";
  };
  const take = (event: StreamEvent) => {
    if (blocked(event)) {
      waiting.push(event);
      return;
    }
    switch (event.type) {
      case "text-delta":
        if (event.text === "") return;
        if (open?.kind !== "text") start("text", { type: "text", text: "" });
        textSent = true;
        delta(open!.index, { type: "text_delta", text: event.text });
        return;
      case "reasoning-delta":
        if (event.text === "") return;
        if (open?.kind !== "thinking") start("thinking", { type: "thinking", thinking: "", signature: "" });
        delta(open!.index, { type: "thinking_delta", thinking: event.text });
        return;
      case "tool-call-start": {
        if (tools.has(event.index)) return;
        const block = start(
          "tool",
          { type: "tool_use", id: event.id, name: event.name, input: {} },
          event.index,
        );
        tools.set(event.index, { block, sent: "", ended: false });
        return;
      }
      case "tool-call-delta": {
        const tool = tools.get(event.index);
        if (tool === undefined || tool.ended || event.argumentsDelta === "") return;
        tool.sent += event.argumentsDelta;
        delta(tool.block, { type: "input_json_delta", partial_json: event.argumentsDelta });
        return;
      }
      case "tool-call-end":
        endTool(event.index, event.toolCall);
        if (!blocked({ type: "text-delta", text: "" })) {
          for (const next of waiting.splice(0)) take(next);
        }
        return;
      case "usage":
        usage = event.usage;
        return;
      default:
        return;
    }
  };

  let done: ModelResponse | undefined;
  try {
    for await (const event of events) {
      if (event.type === "done") {
        done = event.response;
        break;
      }
      if (!started && event.type !== "usage") {
        started = true;
        yield messageStart(context, usage);
      }
      take(event);
      yield* out.splice(0);
    }
  } catch (error) {
    if (!StructuredOutputError.is(error)) throw error;
    done = error.response;
  }
  if (done === undefined) return;
  if (!started) yield messageStart(context, usage);

  // Every call still open ends with the final response; what waited follows.
  const calls = done.message.toolCalls;
  for (const index of tools.keys()) endTool(index, calls[index]);
  for (const next of waiting.splice(0)) take(next);
  close();
  const text = answerText(done);
  if (!textSent && text !== "") {
    const index = start("text", { type: "text", text: "" });
    delta(index, { type: "text_delta", text });
  }
  calls.forEach((call, index) => {
    if (tools.has(index)) return;
    const block = start("tool", { type: "tool_use", id: call.id, name: call.name, input: {} }, index);
    tools.set(index, { block, sent: "", ended: false });
    endTool(index, call);
  });
  const envelope = envelopeOf(done, context.route);
  if (envelope !== undefined) {
    const index = start("thinking", { type: "thinking", thinking: "", signature: "" });
    delta(index, { type: "signature_delta", signature: envelope });
  }
  close();
  const warnings = [...(done.warnings ?? [])];
  const final = anthropicUsageOf(done.usage, warnings);
  out.push(
    frame("message_delta", {
      delta: { stop_reason: anthropicStopReasonOf(done, warnings), stop_sequence: null },
      usage: {
        input_tokens: done.usage.inputTokens ?? null,
        output_tokens: final.output_tokens,
        cache_creation_input_tokens: final.cache_creation_input_tokens,
        cache_read_input_tokens: final.cache_read_input_tokens,
      },
      ...(warnings.length > 0 ? { warnings } : {}),
    }),
    frame("message_stop", {}),
  );
  yield* out.splice(0);
}

/** `message_start`, with the usage reported so far. */
function messageStart(context: MessageStreamContext, usage: Usage): Frame {
  const counts = anthropicUsageOf(usage);
  return frame("message_start", {
    message: {
      id: messageId(),
      type: "message",
      role: "assistant",
      model: context.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: counts,
    },
  });
}
