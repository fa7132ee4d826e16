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
import type { Provider } from "../core/provider.ts";
import { redactSecrets } from "../core/provider-error.ts";
import { type OtlpSink, otlpSink } from "../substrate/otlp-sink.ts";
import type { TelemetrySink } from "../substrate/telemetry.ts";
import type { Gateway, WorkerEnv } from "./env.ts";
import { observedBy } from "./observe.ts";
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
 * `provider` observed into `sink`, each call's end flushing the request's spans (`flush`).
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
  return observedBy(provider, () => ended(sink.sink()), captureContent);
}
