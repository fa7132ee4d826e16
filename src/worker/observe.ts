/**
 * A gateway member observed through telemetry callbacks: its `complete` and `stream` through
 * `withTelemetry`, and its native endpoint (passthrough calls: `/v1/messages` on an Anthropic upstream,
 * `/v1/responses` on a Responses one) reported the same way — a request event with the body's settings,
 * then a response event (from the answer's neutral `Response`) or an error event (with the usage reported
 * before the failure). The traces (`otel.ts`) and the per-key usage meter (`keys/meter.ts`) both see calls
 * through it.
 *
 * @module
 */
import type { MessageInput } from "../core/message.ts";
import type { Provider } from "../core/provider.ts";
import { ProviderError } from "../core/provider-error.ts";
import type { NativeAnswer, NativeEndpoint, NativeEvent, NativeRequest } from "../providers/native.ts";
import {
  type ErrorTelemetry,
  type TelemetryCall,
  type TelemetrySink,
  withTelemetry,
} from "../substrate/telemetry.ts";

/**
 * `provider` observed into the sinks `sinkOf` makes (one for its calls, one for its native endpoint): its
 * `complete` and `stream` through `withTelemetry`, its native endpoint (when it has one) through
 * {@link observedNative}; every other property read from `provider`. Message content reaches the events
 * only with `captureContent`.
 */
export function observedBy(
  provider: Provider,
  sinkOf: () => TelemetrySink,
  captureContent = false,
): Provider {
  const calls = withTelemetry(provider, sinkOf(), { content: captureContent });
  const native = (provider as { native?: NativeEndpoint }).native;
  const nativeObserved = native ? observedNative(provider, native, sinkOf(), captureContent) : undefined;
  return new Proxy(provider, {
    get(target, key) {
      if (key === "complete") return calls.complete.bind(calls);
      if (key === "stream") return calls.stream.bind(calls);
      if (key === "native") return nativeObserved;
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
      /** The upstream's answer, once it came: its usage so far is what a failure part-way cost. */
      let answered: NativeAnswer | undefined;
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
        const usage = answered?.usage?.();
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
            ...(usage ? { usage } : {}),
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
      answered = answer;
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
