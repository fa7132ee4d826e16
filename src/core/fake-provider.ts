/**
 * `FakeProvider`: a provider with no I/O. It answers from a script, in order, and records every call, so
 * loops, fallback chains and the Worker can be tested deterministically.
 *
 * @module
 */

import { abortedError } from "./aborted-error.ts";
import type { CallOptions } from "./call-options.ts";
import { StreamAccumulator } from "./collect-stream.ts";
import { contentText } from "./content.ts";
import {
  type Message,
  type MessageInput,
  type Native,
  normalizeMessages,
  type ToolCallInput,
} from "./message.ts";
import type { Provider } from "./provider.ts";
import type { AssistantMessage, Response, StopReason } from "./response.ts";
import type { StreamEvent } from "./stream-event.ts";
import { prepareResponseFormat, readStructuredOutput } from "./structured-output.ts";
import { normalizeToolSpecs, type ToolSpec, type ToolSpecInput } from "./tool-spec.ts";
import type { Usage } from "./usage.ts";

/** A scripted answer, written as briefly as a test needs. */
export interface FakeReply {
  text?: string;
  reasoning?: string;
  toolCalls?: readonly ToolCallInput[];
  usage?: Usage;
  stopReason?: StopReason;
  rawStopReason?: string;
  native?: Native;
  /** Model reported in the response; the provider's model by default. */
  model?: string;
  /**
   * How `stream()` splits `text` into `text-delta` events: at most this many characters each
   * (default: the whole text in one delta).
   */
  chunkSize?: number;
  /** Milliseconds to wait before each streamed event (and before `complete()` returns). */
  delayMs?: number;
}

/** A scripted stream, event by event. A missing `done` event is added from the events. */
export interface FakeStream {
  events: readonly StreamEvent[];
  /** Milliseconds to wait before each event. */
  delayMs?: number;
  /** Throw `error` after `at` events have been yielded (0: before the first). */
  failAt?: { at: number; error: unknown };
}

/** A scripted failure: the call throws `error` before producing anything. */
export interface FakeFailure {
  error: unknown;
}

/** What one call of the script answers with; a function computes it from the call. */
export type FakeStep =
  | FakeReply
  | FakeStream
  | FakeFailure
  | ((call: FakeCall) => FakeStep | Promise<FakeStep>);

/** A call the fake received, recorded for assertions. Messages and tools are normalised copies. */
export interface FakeCall {
  method: "complete" | "stream";
  messages: Message[];
  tools: ToolSpec[];
  options: CallOptions;
}

/** Settings of a {@link FakeProvider}. */
export interface FakeProviderSettings {
  /** The answers, in call order. */
  script?: readonly FakeStep[];
  model?: string;
  /** Provider name reported in responses (default `"fake"`). */
  name?: string;
}

/** Thrown when the fake is called more times than its script has steps. Not a `ProviderError`: a test bug. */
export class FakeScriptExhaustedError extends Error {
  override readonly name = "FakeScriptExhaustedError";
}

/**
 * A provider that answers from a script and records every call.
 *
 * @example
 * ```ts
 * const fake = new FakeProvider({
 *   script: [
 *     { toolCalls: [{ id: "call_1", name: "weather", arguments: { city: "Oslo" } }] },
 *     { text: "It is sunny in Oslo." },
 *   ],
 * });
 * const first = await fake.complete([{ role: "user", content: "Weather in Oslo?" }]);
 * first.stopReason;           // "tool-calls"
 * fake.calls[0].messages;     // what the loop sent
 * ```
 */
export class FakeProvider implements Provider {
  readonly name: string;
  readonly model: string;
  readonly protocol = "fake";
  /** Every call received, in order. */
  readonly calls: FakeCall[] = [];
  private readonly script: FakeStep[];

  constructor(settings: FakeProviderSettings = {}) {
    this.script = [...(settings.script ?? [])];
    this.model = settings.model ?? "fake-model";
    this.name = settings.name ?? "fake";
  }

  /** Appends steps to the script. */
  push(...steps: FakeStep[]): this {
    this.script.push(...steps);
    return this;
  }

  /** Steps not yet used. */
  get remaining(): number {
    return this.script.length - this.calls.length;
  }

  async complete(
    messages: readonly MessageInput[],
    tools?: readonly ToolSpecInput[],
    options: CallOptions = {},
  ): Promise<Response> {
    const format = prepareResponseFormat(options.responseFormat);
    const step = await this.next("complete", messages, tools, options);
    if (isFailure(step)) throw step.error;
    if (isStream(step)) {
      // A scripted stream answers complete() with what the stream would have ended with.
      let response: Response | undefined;
      for await (const event of this.play(step, options))
        if (event.type === "done") response = event.response;
      return response!;
    }
    await sleep(step.delayMs, options.signal, this);
    return readStructuredOutput(this.responseOf(step), format);
  }

  async *stream(
    messages: readonly MessageInput[],
    tools?: readonly ToolSpecInput[],
    options: CallOptions = {},
  ): AsyncGenerator<StreamEvent, void, undefined> {
    const step = await this.next("stream", messages, tools, options);
    if (isFailure(step)) throw step.error;
    yield* this.play(isStream(step) ? step : this.streamOf(step), options);
  }

  private async next(
    method: FakeCall["method"],
    messages: readonly MessageInput[],
    tools: readonly ToolSpecInput[] | undefined,
    options: CallOptions,
  ): Promise<FakeReply | FakeStream | FakeFailure> {
    const { signal, responseFormat, ...rest } = options;
    // Copies, so a loop that mutates its history later cannot rewrite what was recorded; a response
    // format's schema may be code (a zod schema), kept as it is.
    const recorded: CallOptions = structuredClone(rest);
    if (responseFormat) recorded.responseFormat = responseFormat;
    if (signal) recorded.signal = signal;
    const call: FakeCall = {
      method,
      messages: structuredClone(normalizeMessages(messages)),
      tools: normalizeToolSpecs(tools),
      options: recorded,
    };
    const position = this.calls.length;
    this.calls.push(call);
    let step = this.script[position];
    if (step === undefined) {
      throw new FakeScriptExhaustedError(
        `FakeProvider script exhausted: call #${position + 1} (${method}) but only ${this.script.length} step(s) were scripted`,
      );
    }
    throwIfAborted(signal, this);
    while (typeof step === "function") step = await step(call);
    return step;
  }

  private async *play(step: FakeStream, options: CallOptions): AsyncGenerator<StreamEvent, void, undefined> {
    const format = prepareResponseFormat(options.responseFormat);
    const accumulator = new StreamAccumulator();
    let yielded = 0;
    for (const event of step.events) {
      if (step.failAt && step.failAt.at === yielded) throw step.failAt.error;
      await sleep(step.delayMs, options.signal, this);
      if (event.type === "done") {
        yield { type: "done", response: await readStructuredOutput(event.response, format) };
        return;
      }
      accumulator.add(event);
      yield event;
      yielded++;
    }
    if (step.failAt && step.failAt.at >= yielded) throw step.failAt.error;
    const response = accumulator.toResponse({ model: this.model, provider: this.name });
    yield { type: "done", response: await readStructuredOutput(response, format) };
  }

  private responseOf(reply: FakeReply): Response {
    const toolCalls = (reply.toolCalls ?? []).map((call) => ({ ...call, arguments: call.arguments ?? {} }));
    const message: AssistantMessage = {
      role: "assistant",
      content: reply.text ?? "",
      toolCalls,
      toolResults: [],
      synthetic: false,
    };
    if (reply.native) message.native = reply.native;
    const response: Response = {
      message,
      usage: reply.usage ?? {},
      stopReason: reply.stopReason ?? (toolCalls.length > 0 ? "tool-calls" : "stop"),
      model: reply.model ?? this.model,
      provider: this.name,
    };
    if (reply.rawStopReason !== undefined) response.rawStopReason = reply.rawStopReason;
    if (reply.reasoning) response.reasoning = reply.reasoning;
    return structuredClone(response);
  }

  /** The events a real provider would stream for `reply`, ending with the same response `complete()` gives. */
  private streamOf(reply: FakeReply): FakeStream {
    const response = this.responseOf(reply);
    const events: StreamEvent[] = [];
    if (reply.reasoning) events.push({ type: "reasoning-delta", text: reply.reasoning });
    for (const text of chunks(contentText(response.message.content), reply.chunkSize))
      events.push({ type: "text-delta", text });
    response.message.toolCalls.forEach((toolCall, index) => {
      events.push({ type: "tool-call-start", index, id: toolCall.id, name: toolCall.name });
      const argumentsDelta = toolCall.argumentsText ?? JSON.stringify(toolCall.arguments);
      events.push({ type: "tool-call-delta", index, id: toolCall.id, argumentsDelta });
      events.push({ type: "tool-call-end", index, toolCall });
    });
    if (reply.usage) events.push({ type: "usage", usage: reply.usage });
    events.push({ type: "done", response });
    return reply.delayMs === undefined ? { events } : { events, delayMs: reply.delayMs };
  }
}

function isFailure(step: FakeReply | FakeStream | FakeFailure): step is FakeFailure {
  return "error" in step;
}

function isStream(step: FakeReply | FakeStream): step is FakeStream {
  return "events" in step;
}

function chunks(text: string, size: number | undefined): string[] {
  if (text === "") return [];
  if (!size || size >= text.length) return [text];
  const pieces: string[] = [];
  // Split on code points, never inside a surrogate pair.
  const characters = Array.from(text);
  for (let start = 0; start < characters.length; start += size)
    pieces.push(characters.slice(start, start + size).join(""));
  return pieces;
}

function throwIfAborted(signal: AbortSignal | undefined, provider: Provider): void {
  if (signal?.aborted) throw abortedError(provider, signal);
}

function sleep(ms: number | undefined, signal: AbortSignal | undefined, provider: Provider): Promise<void> {
  throwIfAborted(signal, provider);
  if (!ms) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError(provider, signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
