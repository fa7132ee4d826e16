/**
 * OpenTelemetry traces of the gateway's model calls: with `OTEL_EXPORTER_OTLP_ENDPOINT` set, every
 * upstream call a route makes is one span (`otlpSink`, the GenAI conventions), sent to
 * `{endpoint}/v1/traces` with the headers of the `OTEL_EXPORTER_OTLP_HEADERS` secret (`k1=v1,k2=v2`,
 * values percent-decoded, as the OTel SDKs read it). Spans are flushed with `ctx.waitUntil` as each
 * call ends, so an export never delays a response; with no endpoint nothing is observed and nothing is
 * sent. `OTEL_SERVICE_NAME` names the service (default `modelwire`);
 * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` puts message content into the spans (off by
 * default).
 *
 * Calls a route passes through natively (`/v1/messages` on an Anthropic upstream, `/v1/responses` on a
 * Responses upstream) are observed at their native endpoint: the same span, from the request body's
 * settings and the answer's neutral `Response`. A pool that fails over makes one span per member tried.
 * Header values are never logged: an export's failure is logged without them.
 *
 * @module
 */
import type { Context } from "hono";
import type { MessageInput } from "../core/message.ts";
import type { Provider } from "../core/provider.ts";
import { ProviderError, redactSecrets } from "../core/provider-error.ts";
import type { NativeAnswer, NativeEndpoint, NativeEvent, NativeRequest } from "../providers/native.ts";
import { type OtlpSink, otlpSink } from "../substrate/otlp-sink.ts";
import {
  type ErrorTelemetry,
  type TelemetryCall,
  type TelemetrySink,
  withTelemetry,
} from "../substrate/telemetry.ts";
import type { Gateway, WorkerEnv } from "./env.ts";
import { otlpHeaders } from "./otlp-headers.ts";

/** Settings of the gateway's traces beside the environment (see `CreateWorkerOptions.otel`). */
export interface OtelSettings {
  /** The `fetch` spans are exported with (tests: a fake collector); default the global one. */
  fetch?: typeof fetch | undefined;
}

/** What a route call observes its providers with, for one request. */
export interface RequestTraces {
  observe(provider: Provider): Provider;
}

/**
 * The traces of request `c`: undefined when no endpoint is configured. Each observed call's end flushes
 * the request's spans with `waitUntil` (without an execution context: in the background).
 */
export function requestTraces(
  c: Context<Gateway>,
  settings: OtelSettings,
  log: (message: string) => void,
): RequestTraces | undefined {
  const env: WorkerEnv | undefined = c.env;
  const endpoint =
    typeof env?.OTEL_EXPORTER_OTLP_ENDPOINT === "string" ? env.OTEL_EXPORTER_OTLP_ENDPOINT.trim() : "";
  if (endpoint === "") return undefined;
  const headers = otlpHeaders(
    typeof env?.OTEL_EXPORTER_OTLP_HEADERS === "string" ? env.OTEL_EXPORTER_OTLP_HEADERS : undefined,
  );
  const captureContent =
    String(env?.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT).toLowerCase() === "true";
  const sink = otlpSink({
    endpoint,
    headers,
    fetch: settings.fetch,
    serviceName: typeof env?.OTEL_SERVICE_NAME === "string" ? env.OTEL_SERVICE_NAME : undefined,
    captureContent,
    // The export error's text has the header values removed by the sink already.
    onExportError: (error) => log(`modelwire: ${redactSecrets(error.message, Object.values(headers))}`),
  });
  const flush = () => {
    const sent = sink.flush();
    try {
      c.executionCtx.waitUntil(sent);
    } catch {
      // No execution context (a test calling `app.fetch` directly): the export runs in the background.
    }
  };
  return { observe: (provider) => observed(provider, sink, flush, captureContent) };
}

/**
 * `provider` observed into `sink`: its `complete` and `stream` through `withTelemetry`, its native
 * endpoint (when it has one) through {@link observedNative}; every other property read from `provider`.
 */
function observed(provider: Provider, sink: OtlpSink, flush: () => void, captureContent: boolean): Provider {
  const ended = (base: TelemetrySink): TelemetrySink => ({
    ...base,
    onResponse(event) {
      base.onResponse?.(event);
      flush();
    },
    onError(event) {
      base.onError?.(event);
      flush();
    },
  });
  const calls = withTelemetry(provider, ended(sink.sink()), { content: captureContent });
  const native = (provider as { native?: NativeEndpoint }).native;
  const nativeTraced = native
    ? observedNative(provider, native, ended(sink.sink()), captureContent)
    : undefined;
  return new Proxy(provider, {
    get(target, key) {
      if (key === "complete") return calls.complete.bind(calls);
      if (key === "stream") return calls.stream.bind(calls);
      if (key === "native") return nativeTraced;
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * A native endpoint reporting each `send` to `sink` as `withTelemetry` would report a call: a request
 * event with the body's settings, then a response event (from the answer's neutral `Response`, once the
 * stream has ended) or an error event.
 */
function observedNative(
  provider: Provider,
  native: NativeEndpoint,
  sink: TelemetrySink,
  captureContent: boolean,
): NativeEndpoint {
  let calls = 0;
  const clock = () => performance.now();
  const traced: NativeEndpoint = {
    protocol: native.protocol,
    origin: native.origin,
    async send(request: NativeRequest): Promise<NativeAnswer> {
      const call: TelemetryCall = {
        callId: ++calls,
        method: request.stream ? "stream" : "complete",
        provider: provider.name,
        model: provider.model,
        protocol: native.protocol,
      };
      const body = request.body;
      const messages = Array.isArray(body.messages)
        ? body.messages
        : Array.isArray(body.input)
          ? body.input
          : [];
      const started = clock();
      emit(() =>
        sink.onRequest?.({
          ...call,
          type: "request",
          messages: messages.length,
          syntheticMessages: 0,
          tools: Array.isArray(body.tools) ? body.tools.length : 0,
          ...numberField("maxTokens", body.max_tokens ?? body.max_output_tokens),
          ...numberField("temperature", body.temperature),
          ...numberField("topP", body.top_p),
          ...(Array.isArray(body.stop_sequences) ? { stopSequences: body.stop_sequences.map(String) } : {}),
          ...(captureContent ? { input: messages as MessageInput[] } : {}),
        }),
      );
      let firstToken: number | undefined;
      const succeeded = (answer: NativeAnswer) => {
        const response = answer.response();
        if (!response) return failed(new Error("the native answer ended without a response"), false);
        emit(() =>
          sink.onResponse?.({
            ...call,
            type: "response",
            latencyMs: clock() - started,
            ...(firstToken !== undefined ? { timeToFirstTokenMs: firstToken - started } : {}),
            responseProvider: response.provider,
            responseModel: response.model,
            stopReason: response.stopReason,
            ...(response.rawStopReason !== undefined ? { rawStopReason: response.rawStopReason } : {}),
            ...(response.id !== undefined ? { responseId: response.id } : {}),
            usage: response.usage,
            synthetic: false,
            ...(captureContent ? { output: response.message } : {}),
          }),
        );
      };
      const failed = (error: unknown, partialOutput: boolean) => {
        const data: ErrorTelemetry["error"] = ProviderError.is(error)
          ? error.toJSON()
          : { name: error instanceof Error ? error.name : "Error", message: String(error) };
        emit(() =>
          sink.onError?.({
            ...call,
            type: "error",
            latencyMs: clock() - started,
            ...(firstToken !== undefined ? { timeToFirstTokenMs: firstToken - started } : {}),
            error: data,
            partialOutput: partialOutput || (ProviderError.is(error) && error.partialOutput),
          }),
        );
      };
      let answer: NativeAnswer;
      try {
        answer = await native.send(request);
      } catch (error) {
        failed(error, false);
        throw error;
      }
      if (!answer.events) {
        succeeded(answer);
        return answer;
      }
      const events = answer.events;
      async function* watched(): AsyncGenerator<NativeEvent, void, undefined> {
        let ended = false;
        try {
          for await (const event of events) {
            if (firstToken === undefined && event.event.includes("delta")) firstToken = clock();
            yield event;
          }
          ended = true;
          succeeded(answer);
        } catch (error) {
          ended = true;
          failed(error, firstToken !== undefined);
          throw error;
        } finally {
          if (!ended) {
            const closed = new Error("the reader stopped before the stream ended");
            closed.name = "StreamClosed";
            failed(closed, firstToken !== undefined);
          }
        }
      }
      return { ...answer, response: () => answer.response(), events: watched() };
    },
  };
  if (native.countTokens) traced.countTokens = native.countTokens.bind(native);
  return traced;
}

function numberField<K extends string>(key: K, value: unknown): Partial<Record<K, number>> {
  return typeof value === "number" && Number.isFinite(value) ? ({ [key]: value } as Record<K, number>) : {};
}

function emit(report: () => void) {
  try {
    report();
  } catch {
    // Telemetry never changes the outcome of a call.
  }
}
