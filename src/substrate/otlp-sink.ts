/**
 * `otlpSink()`: `withTelemetry` events as OpenTelemetry spans, sent to a collector over OTLP/HTTP JSON
 * (`POST {endpoint}/v1/traces`) with `fetch` — no SDK. Spans follow the GenAI semantic conventions.
 *
 * One span per call (kind CLIENT), named `"{gen_ai.operation.name} {gen_ai.request.model}"` (`chat …`).
 * A fallback chain's call is still one span: each entry passed over is a span event
 * `modelwire.fallback` (its index, provider, model and `error.type`), and the entry that served is in
 * the span's `gen_ai.response.model` and `modelwire.fallback.served_index`.
 *
 * Attributes (each only when known; a count the provider did not report is absent, never 0):
 * `gen_ai.operation.name` (`chat`), `gen_ai.provider.name` (the conventions' well-known values:
 * `anthropic`, `openai`, `aws.bedrock`, `gcp.gemini`, `gcp.vertex_ai`, …), `gen_ai.request.model`,
 * `gen_ai.request.max_tokens` / `temperature` / `top_p` / `stop_sequences`, `gen_ai.conversation.id`
 * (the session id), `gen_ai.response.model`, `gen_ai.response.id`, `gen_ai.response.finish_reasons`,
 * `gen_ai.usage.input_tokens` (all input, cache reads and writes included, as the conventions count it),
 * `gen_ai.usage.output_tokens`, `gen_ai.usage.cache_read.input_tokens`,
 * `gen_ai.usage.cache_creation.input_tokens`, `error.type` (the `ProviderError` kind, else the error's
 * name; the span's status is then ERROR). modelwire's own: `modelwire.usage.reasoning_tokens`,
 * `modelwire.time_to_first_token_ms` (streams), `modelwire.cost_usd`, `modelwire.stream`,
 * `modelwire.protocol`, `modelwire.partial_output`. With `captureContent` only: `gen_ai.input.messages`
 * and `gen_ai.output.messages`, JSON text in the conventions' shape (`[{ role, parts }]`).
 *
 * Spans are queued and sent in batches by {@link OtlpSink.flush} (and every `flushIntervalMs`, when
 * set). The queue is bounded: when full, the oldest span is dropped and counted. A failed export never
 * reaches a model call: it goes to `onExportError`, if given, and is otherwise silent.
 *
 * @module
 */
import { contentText } from "../core/content.ts";
import type { MessageInput } from "../core/message.ts";
import type { Provider } from "../core/provider.ts";
import { redactSecrets } from "../core/provider-error.ts";
import { totalInputTokens } from "../core/usage.ts";
import {
  type ErrorTelemetry,
  type FallbackTelemetry,
  type RequestTelemetry,
  type ResponseTelemetry,
  type TelemetryOptions,
  type TelemetrySink,
  withTelemetry,
} from "./telemetry.ts";

/** Options of {@link otlpSink}. */
export interface OtlpSinkOptions {
  /** The collector's base URL (`OTEL_EXPORTER_OTLP_ENDPOINT`); spans go to `{endpoint}/v1/traces`. */
  endpoint: string;
  /** Headers of every export (an API key of the collector, say). Never logged nor reported. */
  headers?: Record<string, string> | undefined;
  /** The `fetch` to export with; default the global one. */
  fetch?: typeof fetch | undefined;
  /** The resource's `service.name`; default `"modelwire"`. */
  serviceName?: string | undefined;
  /** Put message content into the spans (`gen_ai.input.messages` / `gen_ai.output.messages`). Default false. */
  captureContent?: boolean | undefined;
  /** Most spans per export request; default 100. */
  maxBatch?: number | undefined;
  /** Most spans queued; when full the oldest is dropped (see {@link OtlpSink.dropped}). Default 2048. */
  maxQueue?: number | undefined;
  /** When set, queued spans are also flushed this often (a timer runs while spans are queued). */
  flushIntervalMs?: number | undefined;
  /** Where a failed export is reported (a network error, a non-2xx answer). Default: nowhere. */
  onExportError?: ((error: Error) => void) | undefined;
  /** Wall clock in milliseconds since the epoch; default `Date.now`. */
  clock?: (() => number) | undefined;
}

/** An OTLP attribute value. */
export type OtlpValue =
  | { stringValue: string }
  | { intValue: string }
  | { doubleValue: number }
  | { boolValue: boolean }
  | { arrayValue: { values: OtlpValue[] } };

/** An OTLP attribute. */
export interface OtlpKeyValue {
  key: string;
  value: OtlpValue;
}

/** One span, in the OTLP JSON encoding. */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpKeyValue[];
  events: { timeUnixNano: string; name: string; attributes: OtlpKeyValue[] }[];
  status: { code: number; message?: string };
}

/** What {@link otlpSink} returns. */
export interface OtlpSink {
  /** `provider` observed by `withTelemetry` into this sink (`content` follows `captureContent`). */
  observe(provider: Provider, options?: TelemetryOptions): Provider;
  /**
   * A `TelemetrySink` for one `withTelemetry` wrapper (call ids are counted per wrapper, so each wrapper
   * needs its own). Pass `content: captureContent` to `withTelemetry` for the message attributes.
   */
  sink(): TelemetrySink;
  /** Sends every queued span (in batches of `maxBatch`). Never rejects. */
  flush(): Promise<void>;
  /** Spans waiting to be sent. */
  readonly queued: number;
  /** Spans dropped because the queue was full, since the sink was made. */
  readonly dropped: number;
}

const SPAN_KIND_CLIENT = 3;
const STATUS_UNSET = 0;
const STATUS_ERROR = 2;

/** modelwire's provider names → the conventions' well-known `gen_ai.provider.name` values. */
const PROVIDER_NAMES: Record<string, string> = {
  anthropic: "anthropic",
  openai: "openai",
  bedrock: "aws.bedrock",
  gemini: "gcp.gemini",
  google: "gcp.gemini",
  vertex: "gcp.vertex_ai",
  azure: "azure.ai.openai",
  mistral: "mistral_ai",
  groq: "groq",
  deepseek: "deepseek",
  xai: "x_ai",
  perplexity: "perplexity",
  cohere: "cohere",
};

/** The conventions' `gen_ai.provider.name` of a modelwire provider name (other names as they are). */
export function genAiProviderName(provider: string): string {
  return PROVIDER_NAMES[provider] ?? provider;
}

/**
 * A sink turning `withTelemetry` events into OTLP/HTTP JSON spans (see the module's notes for the
 * attributes).
 *
 * @example
 * ```ts
 * const otlp = otlpSink({ endpoint: "https://otel.example.com", headers: { authorization: "Bearer …" } });
 * const observed = otlp.observe(provider);
 * await observed.complete([{ role: "user", content: "hi" }]);
 * await otlp.flush();
 * ```
 */
export function otlpSink(options: OtlpSinkOptions): OtlpSink {
  const endpoint = `${options.endpoint.replace(/\/+$/, "")}/v1/traces`;
  const maxBatch = Math.max(1, options.maxBatch ?? 100);
  const maxQueue = Math.max(1, options.maxQueue ?? 2048);
  const clock = options.clock ?? Date.now;
  const captureContent = options.captureContent === true;
  const secrets = Object.values(options.headers ?? {});
  const queue: OtlpSpan[] = [];
  let dropped = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let sending: Promise<void> = Promise.resolve();

  const report = (error: unknown) => {
    if (!options.onExportError) return;
    const message = redactSecrets(error instanceof Error ? error.message : String(error), secrets);
    try {
      options.onExportError(new Error(`OTLP export to ${endpoint} failed: ${message}`));
    } catch {
      // The reporter's own failure stays out of the caller's way too.
    }
  };

  const enqueue = (span: OtlpSpan) => {
    queue.push(span);
    while (queue.length > maxQueue) {
      queue.shift();
      dropped++;
    }
    if (options.flushIntervalMs !== undefined && timer === undefined) {
      timer = setTimeout(() => {
        timer = undefined;
        void flush();
      }, options.flushIntervalMs);
    }
  };

  const send = async (spans: OtlpSpan[]) => {
    try {
      const doFetch = options.fetch ?? fetch;
      const answer = await doFetch(endpoint, {
        method: "POST",
        headers: { ...options.headers, "content-type": "application/json" },
        body: JSON.stringify(exportRequest(spans, options.serviceName ?? "modelwire")),
      });
      if (!answer.ok) {
        await answer.body?.cancel().catch(() => {});
        throw new Error(`the collector answered ${answer.status}`);
      }
      await answer.body?.cancel().catch(() => {});
    } catch (error) {
      report(error);
    }
  };

  const flush = (): Promise<void> => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    // Exports run one after another, so a flush resolves once what was queued when it was called is sent.
    sending = sending.then(async () => {
      while (queue.length > 0) await send(queue.splice(0, maxBatch));
    });
    return sending;
  };

  const sink = (): TelemetrySink => {
    const open = new Map<number, OpenSpan>();
    const opened = (callId: number): OpenSpan | undefined => open.get(callId);
    return {
      onRequest(event) {
        open.set(event.callId, { request: event, start: clock(), events: [] });
      },
      onFallback(event) {
        opened(event.callId)?.events.push(fallbackEvent(event, clock()));
      },
      onResponse(event) {
        const span = opened(event.callId);
        open.delete(event.callId);
        enqueue(spanOf(span, event, clock(), captureContent));
      },
      onError(event) {
        const span = opened(event.callId);
        open.delete(event.callId);
        enqueue(spanOf(span, event, clock(), captureContent));
      },
    };
  };

  return {
    observe: (provider, telemetry = {}) =>
      withTelemetry(provider, sink(), { content: captureContent, ...telemetry }),
    sink,
    flush,
    get queued() {
      return queue.length;
    },
    get dropped() {
      return dropped;
    },
  };
}

interface OpenSpan {
  request: RequestTelemetry;
  /** Wall clock at the request, in ms. */
  start: number;
  events: OtlpSpan["events"];
}

function spanOf(
  open: OpenSpan | undefined,
  end: ResponseTelemetry | ErrorTelemetry,
  now: number,
  captureContent: boolean,
): OtlpSpan {
  const start = open?.start ?? now - end.latencyMs;
  const request = open?.request;
  const attributes = new Attributes();
  attributes.string("gen_ai.operation.name", "chat");
  attributes.string(
    "gen_ai.provider.name",
    genAiProviderName(end.type === "response" ? end.responseProvider : end.provider),
  );
  attributes.string("gen_ai.request.model", end.model);
  attributes.int("gen_ai.request.max_tokens", request?.maxTokens);
  attributes.double("gen_ai.request.temperature", request?.temperature);
  attributes.double("gen_ai.request.top_p", request?.topP);
  if (request?.stopSequences?.length)
    attributes.strings("gen_ai.request.stop_sequences", request.stopSequences);
  attributes.string("gen_ai.conversation.id", request?.sessionId);
  attributes.bool("modelwire.stream", end.method === "stream");
  attributes.string("modelwire.protocol", end.protocol);
  attributes.double("modelwire.time_to_first_token_ms", end.timeToFirstTokenMs);
  if (captureContent && request?.input) {
    attributes.string("gen_ai.input.messages", JSON.stringify(request.input.map(messageOf)));
  }
  let status: OtlpSpan["status"] = { code: STATUS_UNSET };
  if (end.type === "response") {
    attributes.string("gen_ai.response.model", end.responseModel);
    attributes.string("gen_ai.response.id", end.responseId);
    attributes.strings("gen_ai.response.finish_reasons", [end.rawStopReason ?? end.stopReason]);
    const { usage } = end;
    attributes.int("gen_ai.usage.input_tokens", totalInputTokens(usage));
    attributes.int("gen_ai.usage.output_tokens", usage.outputTokens);
    attributes.int("gen_ai.usage.cache_read.input_tokens", usage.cachedInputTokens);
    attributes.int("gen_ai.usage.cache_creation.input_tokens", usage.cacheWriteTokens);
    attributes.int("modelwire.usage.reasoning_tokens", usage.reasoningTokens);
    attributes.double("modelwire.cost_usd", end.cost);
    if (end.servedBy) attributes.int("modelwire.fallback.served_index", end.servedBy.index);
    if (captureContent && end.output) {
      attributes.string(
        "gen_ai.output.messages",
        JSON.stringify([{ ...messageOf(end.output), finish_reason: end.rawStopReason ?? end.stopReason }]),
      );
    }
  } else {
    const type = "kind" in end.error ? end.error.kind : end.error.name;
    attributes.string("error.type", type);
    attributes.bool("modelwire.partial_output", end.partialOutput);
    status = { code: STATUS_ERROR, message: end.error.message };
  }
  return {
    traceId: randomHex(16),
    spanId: randomHex(8),
    name: `chat ${end.model}`,
    kind: SPAN_KIND_CLIENT,
    startTimeUnixNano: nanos(start),
    endTimeUnixNano: nanos(Math.max(start, now)),
    attributes: attributes.list,
    events: open?.events ?? [],
    status,
  };
}

function fallbackEvent(event: FallbackTelemetry, now: number): OtlpSpan["events"][number] {
  const attributes = new Attributes();
  attributes.int("modelwire.fallback.index", event.index);
  attributes.string("gen_ai.provider.name", genAiProviderName(event.entryProvider));
  attributes.string("gen_ai.request.model", event.entryModel);
  attributes.string("error.type", event.error.kind);
  return { timeUnixNano: nanos(now), name: "modelwire.fallback", attributes: attributes.list };
}

/** A message in the conventions' shape: `{ role, parts: [{ type, … }] }`. */
function messageOf(message: MessageInput): Record<string, unknown> {
  const parts: Record<string, unknown>[] = [];
  const text = contentText(message.content);
  if (text !== "") parts.push({ type: "text", content: text });
  for (const call of message.toolCalls ?? []) {
    parts.push({ type: "tool_call", id: call.id, name: call.name, arguments: call.arguments ?? {} });
  }
  for (const result of message.toolResults ?? []) {
    parts.push({ type: "tool_call_response", id: result.callId, response: contentText(result.content) });
  }
  return { role: message.role, parts };
}

/** Attributes in the OTLP encoding; an undefined value is left out. */
class Attributes {
  readonly list: OtlpKeyValue[] = [];
  string(key: string, value: string | undefined) {
    if (value !== undefined) this.list.push({ key, value: { stringValue: value } });
  }
  strings(key: string, values: readonly string[]) {
    this.list.push({
      key,
      value: { arrayValue: { values: values.map((stringValue) => ({ stringValue })) } },
    });
  }
  int(key: string, value: number | undefined) {
    if (value !== undefined) this.list.push({ key, value: { intValue: String(Math.trunc(value)) } });
  }
  double(key: string, value: number | undefined) {
    if (value !== undefined) this.list.push({ key, value: { doubleValue: value } });
  }
  bool(key: string, value: boolean) {
    this.list.push({ key, value: { boolValue: value } });
  }
}

function exportRequest(spans: OtlpSpan[], serviceName: string) {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: serviceName } }] },
        scopeSpans: [{ scope: { name: "modelwire" }, spans }],
      },
    ],
  };
}

/** Milliseconds since the epoch as a decimal string of nanoseconds (past 2^53: BigInt). */
function nanos(ms: number): string {
  return (BigInt(Math.round(ms * 1000)) * 1000n).toString();
}

function randomHex(bytes: number): string {
  const values = crypto.getRandomValues(new Uint8Array(bytes));
  let hex = "";
  for (const value of values) hex += value.toString(16).padStart(2, "0");
  return hex;
}
