/**
 * Neutral stream events as the Responses API's event stream, for a route that does not speak the
 * Responses protocol — the grammar `openai`'s `responses.stream()`, `@ai-sdk/openai` and Codex read:
 *
 * - `response.created` (`sequence_number` 0, then +1 per event) and `response.in_progress`;
 * - per output item, in the order the route produced it: `response.output_item.added` (output indexes
 *   that append, an id on every item), its parts and deltas (`reasoning_summary_part.*` /
 *   `reasoning_summary_text.*` for reasoning, `content_part.*` / `output_text.*` for text,
 *   `function_call_arguments.*` for a tool call, `custom_tool_call_input.*` for a call of a custom tool
 *   (its input sent whole once the call is complete: the route streams it JSON-encoded), each with the
 *   item's id as `item_id`), then
 *   `response.output_item.done` with the finished item;
 * - `response.completed` with the full `output` and `usage` — or `response.incomplete` when the output
 *   limit or a content filter stopped the answer.
 *
 * The route's reasoning, when the client asked for `reasoning.encrypted_content`, is known whole only at
 * the end (an Anthropic signature arrives last): the first reasoning item stays open, its summary parts
 * done, until then, and its `output_item.done` carries the envelope just before `response.completed`. A
 * turn whose reasoning had no readable text (redacted thinking) gets a reasoning item of its own there.
 *
 * A silent stretch of 15 s gets an SSE comment ({@link keepAlive}), which every client skips.
 *
 * A failure after the response started ends the stream with a flat `error` event (with its
 * `sequence_number`, which the AI SDK requires) and `response.failed` (which Codex needs: it ignores a
 * bare `error`).
 *
 * @module
 */
import type { ProviderError } from "../../core/provider-error.ts";
import type { Response as ModelResponse } from "../../core/response.ts";
import type { StreamEvent } from "../../core/stream-event.ts";
import { StructuredOutputError } from "../../core/structured-output.ts";
import { dialectErrorJSON, openAIErrorCode } from "../dialect-errors.ts";
import type { Frame } from "../write-sse.ts";
import {
  carriedReasoning,
  customToolCallItem,
  customToolInput,
  functionCallItem,
  messageItem,
  type ResponseBase,
  type ResponsesWriting,
  reasoningItem,
  responseObject,
  responsesId,
  responsesStatusOf,
  responsesUsageOf,
  textPart,
  type WireObject,
} from "./response.ts";

/** One output item being written. */
interface OpenItem {
  index: number;
  id: string;
  kind: "reasoning" | "message" | "function_call" | "custom_tool_call";
  text: string;
  /** function_call: its call id and name. */
  callId?: string;
  name?: string;
  /** reasoning: whether its summary part is done (it may stay open for the envelope). */
  partDone?: boolean;
}

/**
 * The `code` of a failure in the Responses dialect: the codes Codex and the AI SDK act on for the kinds
 * that have one (`context_length_exceeded`, `rate_limit_exceeded`, `insufficient_quota`,
 * `server_is_overloaded`), else the upstream's own OpenAI code, else `server_error` — the HTTP error's
 * mapping (`openAIErrorCode`), plus `structured_output` for an answer that failed its schema.
 */
export function responsesErrorCode(failure: ProviderError | StructuredOutputError): string {
  return StructuredOutputError.is(failure) ? "structured_output" : openAIErrorCode(failure);
}

/** A failure's message, with the wait in Codex's words (`try again in 1.5s`) when it is known. */
export function responsesErrorMessage(
  failure: ProviderError | StructuredOutputError,
  expose: boolean,
): string {
  if (StructuredOutputError.is(failure)) return failure.message;
  const message = dialectErrorJSON(failure, "openai", expose).error.message;
  const wait = failure.retryAfterMs;
  return failure.kind === "rate_limit" && wait !== undefined && Number.isFinite(wait) && wait >= 0
    ? `${message}. Please try again in ${Math.ceil(wait) / 1000}s.`
    : message;
}

/**
 * The frames that end a failed Responses stream: `error` (flat: `code`, `message`, `param`) then
 * `response.failed` with `response` (its `error` set), numbered on from `nextSequence`.
 */
export function responsesFailureFrames(
  failure: ProviderError | StructuredOutputError,
  expose: boolean,
  nextSequence: () => number,
  response: (error: { code: string; message: string }) => WireObject,
  options: { error?: boolean } = {},
): Frame[] {
  const error = { code: responsesErrorCode(failure), message: responsesErrorMessage(failure, expose) };
  const frames: Frame[] = [];
  if (options.error !== false) {
    frames.push({
      event: "error",
      data: { type: "error", sequence_number: nextSequence(), ...error, param: null },
    });
  }
  frames.push({
    event: "response.failed",
    data: { type: "response.failed", sequence_number: nextSequence(), response: response(error) },
  });
  return frames;
}

/** Writes one request's Responses stream: its events, numbered, and the frames that end it on a failure. */
export class ResponsesStreamWriter {
  readonly #base: ResponseBase;
  readonly #route: string;
  readonly #carry: boolean;
  readonly #custom: ReadonlySet<string>;
  readonly #warnings: readonly string[];
  #sequence = 0;
  /** Output items by index, as they stand (finished ones final). */
  readonly #output: WireObject[] = [];
  /** Indexes of the items that got their `output_item.done`. */
  readonly #finished = new Set<number>();
  /** The text or reasoning item being written. */
  #current: OpenItem | undefined;
  /** The first reasoning item, kept open for the envelope. */
  #held: OpenItem | undefined;
  /** Tool call items by the neutral index. */
  readonly #calls = new Map<number, OpenItem>();

  constructor(base: ResponseBase, options: ResponsesWriting) {
    this.#base = base;
    this.#route = options.route;
    this.#carry = options.carryReasoning;
    this.#custom = options.customTools;
    this.#warnings = options.warnings;
  }

  #frame(type: string, fields: WireObject): Frame {
    return { event: type, data: { type, sequence_number: this.#sequence++, ...fields } };
  }

  /** The Responses events of a neutral stream (which ends with `done` or throws). */
  async *frames(events: AsyncIterable<StreamEvent>): AsyncGenerator<Frame, void, undefined> {
    const started = responseObject(this.#base, { status: "in_progress", output: [] });
    yield this.#frame("response.created", { response: started });
    yield this.#frame("response.in_progress", { response: started });
    let done: ModelResponse | undefined;
    try {
      for await (const event of events) {
        if (event.type === "done") {
          done = event.response;
          break;
        }
        yield* this.#apply(event);
      }
    } catch (error) {
      // An answer that is not the JSON `text.format` asked for is sent as it is, as the complete route
      // answers it: checking it is the client's, as with OpenAI.
      if (!StructuredOutputError.is(error)) throw error;
      done = error.response;
    }
    if (done === undefined) return;
    yield* this.#finish(done);
  }

  *#apply(event: StreamEvent): Generator<Frame> {
    switch (event.type) {
      case "reasoning-delta": {
        if (event.text === "") return;
        if (this.#current?.kind !== "reasoning") {
          yield* this.#closeCurrent();
          yield* this.#openReasoning();
        }
        const item = this.#current!;
        item.text += event.text;
        yield this.#frame("response.reasoning_summary_text.delta", {
          item_id: item.id,
          output_index: item.index,
          summary_index: 0,
          delta: event.text,
        });
        return;
      }
      case "text-delta": {
        if (event.text === "") return;
        if (this.#current?.kind !== "message") {
          yield* this.#closeCurrent();
          yield* this.#openMessage();
        }
        const item = this.#current!;
        item.text += event.text;
        yield this.#frame("response.output_text.delta", {
          item_id: item.id,
          output_index: item.index,
          content_index: 0,
          delta: event.text,
          logprobs: [],
        });
        return;
      }
      case "tool-call-start": {
        yield* this.#closeCurrent();
        const custom = this.#custom.has(event.name);
        const item: OpenItem = {
          index: this.#output.length,
          id: responsesId(custom ? "ctc" : "fc"),
          kind: custom ? "custom_tool_call" : "function_call",
          text: "",
          callId: event.id,
          name: event.name,
        };
        this.#calls.set(event.index, item);
        const added = custom
          ? customToolCallItem(item.id, event.id, event.name, "")
          : functionCallItem(item.id, event.id, event.name, "", "in_progress");
        this.#output.push(added);
        yield this.#frame("response.output_item.added", { output_index: item.index, item: added });
        return;
      }
      case "tool-call-delta": {
        const item = this.#calls.get(event.index);
        if (item === undefined || event.argumentsDelta === "") return;
        item.text += event.argumentsDelta;
        // A custom tool's input is the string inside the function arguments: sent whole at the end.
        if (item.kind === "custom_tool_call") return;
        yield this.#frame("response.function_call_arguments.delta", {
          item_id: item.id,
          output_index: item.index,
          delta: event.argumentsDelta,
        });
        return;
      }
      case "tool-call-end": {
        const call = event.toolCall;
        let item = this.#calls.get(event.index);
        if (item === undefined) {
          // A call that ended without a start: opened here, so it is not lost.
          yield* this.#apply({ type: "tool-call-start", index: event.index, id: call.id, name: call.name });
          item = this.#calls.get(event.index)!;
        }
        yield* this.#closeCall(
          item,
          item.kind === "custom_tool_call"
            ? customToolInput(call)
            : (call.argumentsText ?? JSON.stringify(call.arguments)),
        );
        return;
      }
      default:
        return;
    }
  }

  *#openReasoning(): Generator<Frame> {
    const item: OpenItem = { index: this.#output.length, id: responsesId("rs"), kind: "reasoning", text: "" };
    this.#current = item;
    const added = reasoningItem(item.id, "", undefined);
    this.#output.push(added);
    yield this.#frame("response.output_item.added", { output_index: item.index, item: added });
    yield this.#frame("response.reasoning_summary_part.added", {
      item_id: item.id,
      output_index: item.index,
      summary_index: 0,
      part: { type: "summary_text", text: "" },
    });
  }

  *#openMessage(): Generator<Frame> {
    const item: OpenItem = { index: this.#output.length, id: responsesId("msg"), kind: "message", text: "" };
    this.#current = item;
    const added = messageItem(item.id, [], "in_progress");
    this.#output.push(added);
    yield this.#frame("response.output_item.added", { output_index: item.index, item: added });
    yield this.#frame("response.content_part.added", {
      item_id: item.id,
      output_index: item.index,
      content_index: 0,
      part: textPart(""),
    });
  }

  /** Ends the text or reasoning item being written (the first reasoning item stays open when held). */
  *#closeCurrent(): Generator<Frame> {
    const item = this.#current;
    this.#current = undefined;
    if (item === undefined) return;
    if (item.kind === "message") {
      yield this.#frame("response.output_text.done", {
        item_id: item.id,
        output_index: item.index,
        content_index: 0,
        text: item.text,
        logprobs: [],
      });
      yield this.#frame("response.content_part.done", {
        item_id: item.id,
        output_index: item.index,
        content_index: 0,
        part: textPart(item.text),
      });
      yield* this.#itemDone(item.index, messageItem(item.id, [textPart(item.text)]));
      return;
    }
    yield this.#frame("response.reasoning_summary_text.done", {
      item_id: item.id,
      output_index: item.index,
      summary_index: 0,
      text: item.text,
    });
    yield this.#frame("response.reasoning_summary_part.done", {
      item_id: item.id,
      output_index: item.index,
      summary_index: 0,
      part: { type: "summary_text", text: item.text },
    });
    item.partDone = true;
    if (this.#carry && this.#held === undefined) {
      // Its envelope is known only at the end.
      this.#held = item;
      this.#output[item.index] = reasoningItem(item.id, item.text, undefined);
      return;
    }
    yield* this.#itemDone(item.index, reasoningItem(item.id, item.text, undefined));
  }

  *#closeCall(item: OpenItem, args: string): Generator<Frame> {
    if (this.#finished.has(item.index)) return;
    if (item.kind === "custom_tool_call") {
      const common = { item_id: item.id, output_index: item.index };
      if (args !== "") yield this.#frame("response.custom_tool_call_input.delta", { ...common, delta: args });
      yield this.#frame("response.custom_tool_call_input.done", { ...common, input: args });
      yield* this.#itemDone(item.index, customToolCallItem(item.id, item.callId!, item.name!, args));
      return;
    }
    if (args.length > item.text.length && args.startsWith(item.text)) {
      // What the deltas did not deliver.
      yield this.#frame("response.function_call_arguments.delta", {
        item_id: item.id,
        output_index: item.index,
        delta: args.slice(item.text.length),
      });
    }
    item.text = args;
    yield this.#frame("response.function_call_arguments.done", {
      item_id: item.id,
      output_index: item.index,
      arguments: args,
    });
    yield* this.#itemDone(item.index, functionCallItem(item.id, item.callId!, item.name!, args));
  }

  *#itemDone(index: number, item: WireObject): Generator<Frame> {
    this.#output[index] = item;
    this.#finished.add(index);
    yield this.#frame("response.output_item.done", { output_index: index, item });
  }

  /** The end: every open item finished (the held reasoning with its envelope), then the terminal event. */
  *#finish(done: ModelResponse): Generator<Frame> {
    yield* this.#closeCurrent();
    for (const [index, call] of [...this.#calls.entries()].sort(([a], [b]) => a - b)) {
      const final = done.message.toolCalls[index];
      const args =
        final && final.id === call.callId
          ? (final.argumentsText ?? JSON.stringify(final.arguments))
          : call.text;
      yield* this.#closeCall(call, args);
    }
    if (done.refusal !== undefined) yield* this.#refusal(done.refusal);
    const envelope = carriedReasoning(done.message.native, this.#route, this.#carry);
    const held = this.#held;
    if (held !== undefined) {
      yield* this.#itemDone(held.index, reasoningItem(held.id, held.text, envelope));
    } else if (envelope !== undefined) {
      // Reasoning with no readable text (redacted thinking): an item of its own carries it.
      const id = responsesId("rs");
      const index = this.#output.length;
      const added = reasoningItem(id, "", undefined);
      this.#output.push(added);
      yield this.#frame("response.output_item.added", { output_index: index, item: added });
      yield* this.#itemDone(index, reasoningItem(id, "", envelope));
    }
    const { status, incomplete } = responsesStatusOf(done);
    const response = responseObject(this.#base, {
      status,
      incomplete,
      output: this.#output,
      usage: responsesUsageOf(done.usage),
      warnings: [...this.#warnings, ...(done.warnings ?? [])],
    });
    yield this.#frame(status === "completed" ? "response.completed" : "response.incomplete", { response });
  }

  /** A refusal the text deltas did not already carry: a message item with a refusal part. */
  *#refusal(refusal: string): Generator<Frame> {
    const streamed = this.#output.some(
      (item) =>
        item.type === "message" &&
        Array.isArray(item.content) &&
        item.content.some((part: WireObject) => part.text === refusal),
    );
    if (streamed) return;
    const id = responsesId("msg");
    const index = this.#output.length;
    const added = messageItem(id, [], "in_progress");
    this.#output.push(added);
    const part = { type: "refusal", refusal };
    yield this.#frame("response.output_item.added", { output_index: index, item: added });
    yield this.#frame("response.content_part.added", {
      item_id: id,
      output_index: index,
      content_index: 0,
      part: { type: "refusal", refusal: "" },
    });
    yield this.#frame("response.refusal.delta", {
      item_id: id,
      output_index: index,
      content_index: 0,
      delta: refusal,
    });
    yield this.#frame("response.refusal.done", {
      item_id: id,
      output_index: index,
      content_index: 0,
      refusal,
    });
    yield this.#frame("response.content_part.done", {
      item_id: id,
      output_index: index,
      content_index: 0,
      part,
    });
    yield* this.#itemDone(index, messageItem(id, [part]));
  }

  /** The frames that end this stream when it fails (see {@link responsesFailureFrames}). */
  errorFrames = (failure: ProviderError | StructuredOutputError, expose: boolean): Frame[] =>
    responsesFailureFrames(
      failure,
      expose,
      () => this.#sequence++,
      (error) =>
        responseObject(this.#base, {
          status: "failed",
          error,
          output: this.#output.filter((_, index) => this.#finished.has(index)),
        }),
    );
}
