/**
 * `withTelemetry()`: request, response, error and fallback events for every call of a provider — timing,
 * usage, cost and which fallback entry served — with nothing of the credentials.
 *
 * @module
 */
import type { CallOptions } from "../core/call-options.ts";
import type { MessageInput } from "../core/message.ts";
import type { Provider } from "../core/provider.ts";
import { ProviderError, type ProviderErrorJSON, redactSecrets } from "../core/provider-error.ts";
import type { Response, ServedBy, StopReason } from "../core/response.ts";
import { isContentEvent, type StreamEvent } from "../core/stream-event.ts";
import type { ToolSpecInput } from "../core/tool-spec.ts";
import type { Usage } from "../core/usage.ts";
import { chainFailures, type FallbackFailure } from "./chain-failures.ts";
import { costOf, type TokenPrices } from "./cost.ts";

/** Fields every event has. */
export interface TelemetryCall {
  /** Counts calls of this wrapper from 1: ties a call's events together. */
  callId: number;
  method: "complete" | "stream";
  /** The wrapped provider's name, model and protocol (for a chain: the chain's). */
  provider: string;
  model: string;
  protocol: string;
}

/** A call is starting. */
export interface RequestTelemetry extends TelemetryCall {
  type: "request";
  messages: number;
  /** Of `messages`, those the harness invented (`synthetic: true`: compaction summaries and the like). */
  syntheticMessages: number;
  tools: number;
  sessionId?: string | undefined;
  maxTokens?: number | undefined;
  /** Sampling settings of the call, when set (never headers or keys). */
  temperature?: number | undefined;
  topP?: number | undefined;
  stopSequences?: string[] | undefined;
  metadata?: Record<string, string> | undefined;
  /** The messages sent: only with `TelemetryOptions.content` (message content is off by default). */
  input?: readonly MessageInput[] | undefined;
}

/** A call succeeded. */
export interface ResponseTelemetry extends TelemetryCall {
  type: "response";
  latencyMs: number;
  /** Streams only: from the call to the first content event. */
  timeToFirstTokenMs?: number | undefined;
  /** Who answered, as the response says (in a chain: the serving entry). */
  responseProvider: string;
  responseModel: string;
  stopReason: StopReason;
  /** The provider's own stop value, when it sent one. */
  rawStopReason?: string | undefined;
  /** The provider's id of the response, when it sent one. */
  responseId?: string | undefined;
  usage: Usage;
  /** The answer: only with `TelemetryOptions.content` (message content is off by default). */
  output?: Response["message"] | undefined;
  /** US dollars, when the model's prices are known (see `costOf`). */
  cost?: number | undefined;
  servedBy?: ServedBy | undefined;
  /** Whether the returned message is marked synthetic. */
  synthetic: boolean;
}

/** A call failed (or a stream's reader stopped before the end). */
export interface ErrorTelemetry extends TelemetryCall {
  type: "error";
  latencyMs: number;
  timeToFirstTokenMs?: number | undefined;
  /** The error as data, credentials removed. Not a `ProviderError`: `{ name, message }`. */
  error: ProviderErrorJSON | { name: string; message: string };
  /** Some output had reached the caller. */
  partialOutput: boolean;
  /**
   * The usage the upstream reported before the failure (a stream's last `usage` event): what the call
   * was billed. Absent when none was reported.
   */
  usage?: Usage | undefined;
}

/** A fallback entry was passed over during the call (reported once the call has ended). */
export interface FallbackTelemetry extends TelemetryCall {
  type: "fallback";
  /** Position of the failed entry in its chain. */
  index: number;
  entryProvider: string;
  entryModel: string;
  error: ProviderErrorJSON;
}

export type TelemetryEvent = RequestTelemetry | ResponseTelemetry | ErrorTelemetry | FallbackTelemetry;

/** Callbacks per event type. Exceptions thrown by them are ignored: telemetry never fails a call. */
export interface TelemetrySink {
  onRequest?(event: RequestTelemetry): void;
  onResponse?(event: ResponseTelemetry): void;
  onError?(event: ErrorTelemetry): void;
  onFallback?(event: FallbackTelemetry): void;
}

/** Options of {@link withTelemetry}. */
export interface TelemetryOptions {
  /** Clock in milliseconds; default `performance.now` where there is one, else `Date.now`. */
  now?: (() => number) | undefined;
  /** Prices of models the built-in profiles do not know (OpenAI, self-hosted). */
  prices?: ((model: string) => TokenPrices | undefined) | undefined;
  /** Extra strings to scrub from error messages and bodies (keys are already scrubbed by providers). */
  secrets?: readonly (string | undefined)[] | undefined;
  /**
   * Put the message content into the events: the request's `input` messages and the response's `output`
   * message. Default false: events carry counts, never what was said.
   */
  content?: boolean | undefined;
}

/**
 * A provider reporting every call of `provider` to `sink` — an object of callbacks, or one function that
 * receives every event (switch on `type`). Events: `request` when the call starts; then `fallback` for each
 * chain entry passed over, and `response` or `error` when it ends. Events carry counts, timings, usage,
 * cost, `servedBy` and the sampling options (`maxTokens`, `temperature`, `topP`, `stopSequences`), never
 * request headers or provider settings, so no credential; message content only with `content: true`.
 * Error text is scrubbed again (`redactSecrets`).
 *
 * @example
 * ```ts
 * const observed = withTelemetry(chain, {
 *   onResponse: (event) => metrics.record(event.model, event.latencyMs, event.cost),
 *   onFallback: (event) => log.warn(`entry ${event.index} failed: ${event.error.kind}`),
 * });
 * ```
 */
export function withTelemetry(
  provider: Provider,
  sink: TelemetrySink | ((event: TelemetryEvent) => void),
  options: TelemetryOptions = {},
): Provider {
  const now = options.now ?? defaultClock();
  let calls = 0;

  const emit = (event: TelemetryEvent) => {
    try {
      if (typeof sink === "function") {
        sink(event);
        return;
      }
      if (event.type === "request") sink.onRequest?.(event);
      else if (event.type === "response") sink.onResponse?.(event);
      else if (event.type === "error") sink.onError?.(event);
      else sink.onFallback?.(event);
    } catch {
      // Telemetry never changes the outcome of a call.
    }
  };

  const begin = (
    method: TelemetryCall["method"],
    messages: readonly MessageInput[],
    tools: readonly ToolSpecInput[] | undefined,
    callOptions: CallOptions,
  ) => {
    const call: TelemetryCall = {
      callId: ++calls,
      method,
      provider: provider.name,
      model: provider.model,
      protocol: provider.protocol,
    };
    const request: RequestTelemetry = {
      ...call,
      type: "request",
      messages: messages.length,
      syntheticMessages: messages.filter((message) => message.synthetic === true).length,
      tools: tools?.length ?? 0,
    };
    if (callOptions.sessionId !== undefined) request.sessionId = callOptions.sessionId;
    if (callOptions.maxTokens !== undefined) request.maxTokens = callOptions.maxTokens;
    if (callOptions.temperature !== undefined) request.temperature = callOptions.temperature;
    if (callOptions.topP !== undefined) request.topP = callOptions.topP;
    if (callOptions.stopSequences !== undefined) request.stopSequences = [...callOptions.stopSequences];
    if (options.content === true) request.input = messages;
    if (callOptions.metadata !== undefined) request.metadata = { ...callOptions.metadata };
    emit(request);
    return { call, started: now() };
  };

  const fallbacks = (call: TelemetryCall, failures: readonly unknown[] | undefined) => {
    for (const failure of failures ?? []) {
      const { index, ...json } = failure as FallbackFailure;
      const error = scrub(json, options.secrets);
      emit({
        ...call,
        type: "fallback",
        index,
        entryProvider: json.provider,
        entryModel: json.model,
        error,
      });
    }
  };

  const succeeded = (
    call: TelemetryCall,
    started: number,
    response: Response,
    firstToken: number | undefined,
  ) => {
    fallbacks(call, response.servedBy?.failures);
    const priced =
      costOf(response.usage, response.model) ??
      (response.servedBy ? costOf(response.usage, response.servedBy.model) : undefined) ??
      pricedBy(options.prices, response);
    const event: ResponseTelemetry = {
      ...call,
      type: "response",
      latencyMs: now() - started,
      responseProvider: response.provider,
      responseModel: response.model,
      stopReason: response.stopReason,
      usage: response.usage,
      synthetic: response.message.synthetic === true,
    };
    if (firstToken !== undefined) event.timeToFirstTokenMs = firstToken - started;
    if (response.rawStopReason !== undefined) event.rawStopReason = response.rawStopReason;
    if (response.id !== undefined) event.responseId = response.id;
    if (options.content === true) event.output = response.message;
    if (priced !== undefined) event.cost = priced;
    if (response.servedBy) {
      event.servedBy = {
        ...response.servedBy,
        failures: response.servedBy.failures.map((failure) =>
          scrub(failure as ProviderErrorJSON, options.secrets),
        ),
      };
    }
    emit(event);
  };

  const failed = (
    call: TelemetryCall,
    started: number,
    error: unknown,
    firstToken: number | undefined,
    outputSent: boolean,
    usage?: Usage,
  ) => {
    if (typeof error === "object" && error !== null) fallbacks(call, chainFailures.get(error));
    const data: ErrorTelemetry["error"] = ProviderError.is(error)
      ? scrub(error.toJSON(), options.secrets)
      : {
          name: error instanceof Error ? error.name : "Error",
          message: redactSecrets(error instanceof Error ? error.message : String(error), options.secrets),
        };
    const event: ErrorTelemetry = {
      ...call,
      type: "error",
      latencyMs: now() - started,
      error: data,
      partialOutput: outputSent || (ProviderError.is(error) && error.partialOutput),
    };
    if (firstToken !== undefined) event.timeToFirstTokenMs = firstToken - started;
    if (usage !== undefined) event.usage = usage;
    emit(event);
  };

  return {
    name: provider.name,
    model: provider.model,
    protocol: provider.protocol,

    async complete(
      messages: readonly MessageInput[],
      tools?: readonly ToolSpecInput[],
      callOptions: CallOptions = {},
    ): Promise<Response> {
      const { call, started } = begin("complete", messages, tools, callOptions);
      try {
        const response = await provider.complete(messages, tools, callOptions);
        succeeded(call, started, response, undefined);
        return response;
      } catch (error) {
        failed(call, started, error, undefined, false);
        throw error;
      }
    },

    async *stream(
      messages: readonly MessageInput[],
      tools?: readonly ToolSpecInput[],
      callOptions: CallOptions = {},
    ): AsyncGenerator<StreamEvent, void, undefined> {
      const { call, started } = begin("stream", messages, tools, callOptions);
      let firstToken: number | undefined;
      let usage: Usage | undefined;
      let ended = false;
      try {
        for await (const event of provider.stream(messages, tools, callOptions)) {
          if (firstToken === undefined && isContentEvent(event)) firstToken = now();
          if (event.type === "usage") usage = event.usage;
          if (event.type === "done") {
            ended = true;
            succeeded(call, started, event.response, firstToken);
          }
          yield event;
        }
      } catch (error) {
        ended = true;
        failed(call, started, error, firstToken, firstToken !== undefined, usage);
        throw error;
      } finally {
        if (!ended) {
          // The reader stopped early (break / return): the call ends here without a response.
          const closed = new Error("the reader stopped before the stream ended");
          closed.name = "StreamClosed";
          failed(call, started, closed, firstToken, firstToken !== undefined, usage);
        }
      }
    },
  };
}

function pricedBy(prices: TelemetryOptions["prices"], response: Response): number | undefined {
  if (!prices) return undefined;
  const table = prices(response.model) ?? (response.servedBy ? prices(response.servedBy.model) : undefined);
  return table ? costOf(response.usage, table) : undefined;
}

/** Error data with credentials scrubbed from its text fields. */
function scrub(
  data: ProviderErrorJSON,
  secrets: readonly (string | undefined)[] | undefined,
): ProviderErrorJSON {
  const clean: ProviderErrorJSON = { ...data, message: redactSecrets(String(data.message ?? ""), secrets) };
  if (typeof data.upstreamBody === "string") clean.upstreamBody = redactSecrets(data.upstreamBody, secrets);
  return clean;
}

function defaultClock(): () => number {
  const performance = (globalThis as { performance?: { now(): number } }).performance;
  return performance ? () => performance.now() : Date.now;
}
