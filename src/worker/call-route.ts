/**
 * What every model route does once it has read its request: call the route's member for the session and
 * answer with the result ({@link completeOn}), or open the route's stream and answer with SSE frames made
 * from it ({@link streamOn}). The dialect routes differ only in how they read the request and shape the
 * answer.
 *
 * @module
 */
import type { Context } from "hono";
import type { CallOptions } from "../core/call-options.ts";
import type { Provider } from "../core/provider.ts";
import type { Response as ModelResponse } from "../core/response.ts";
import type { StreamEvent } from "../core/stream-event.ts";
import type { Route } from "./config.ts";
import type { Gateway } from "./env.ts";
import { admitCall, sessionObjectName } from "./keys/gateway-keys.ts";
import type { RequestTraces } from "./otel.ts";
import { contentStream, withMember } from "./pool.ts";
import { linkedAbort } from "./request.ts";
import type { RouteTables } from "./route-table.ts";
import { type ErrorFrames, type FrameSource, heldSseResponse, type OpenedFrames } from "./write-sse.ts";

/** What the model routes share: the route tables, and how long a stream's response is held. */
export interface RouteCalls {
  tables: RouteTables;
  /** See `CreateWorkerOptions.streamHoldMs`. */
  streamHoldMs?: number | undefined;
  /** See `CreateWorkerOptions.keepAliveMs`. */
  keepAliveMs?: number | undefined;
  /** Where lost usage records are logged. */
  log?: ((message: string) => void) | undefined;
  /** The request's traces (`otel.ts`): undefined when no OTLP endpoint is configured. */
  traces?: ((c: Context<Gateway>) => RequestTraces | undefined) | undefined;
}

/**
 * The call admitted for the request's key (`keys/gateway-keys.ts`: a refusal throws before any member is
 * called), and the member as the call sees it: metered for the key, and observed into the request's
 * traces when there are any.
 */
async function admitted(
  c: Context<Gateway>,
  gateway: RouteCalls,
  call: ModelCall,
): Promise<{ route: Route; observe: (provider: Provider) => Provider; close: () => void }> {
  const route = gateway.tables.route(c.env, call.route);
  const meter = await admitCall(c, gateway.tables, route, {
    metered: call.metered ?? true,
    log: gateway.log,
  });
  const traces = gateway.traces?.(c);
  return {
    route,
    observe: traces
      ? (provider) => traces.observe(meter.observe(provider))
      : (provider) => meter.observe(provider),
    close: () => meter.close(),
  };
}

/** One model call of a request: on `route`, for `sessionId` (which also reaches the provider). */
export interface ModelCall {
  route: string;
  sessionId: string | undefined;
  /** Call options from the request; the gateway adds `signal` and `sessionId`. */
  options?: CallOptions | undefined;
  /** Whether the call counts against the key's limits and usage (default true; `count_tokens`: false). */
  metered?: boolean | undefined;
}

/**
 * `complete` on the call's member, with the request's signal (a client that leaves aborts the upstream
 * call).
 */
export async function completeOn<T = ModelResponse>(
  c: Context<Gateway>,
  gateway: RouteCalls,
  call: ModelCall,
  complete: (provider: Provider, options: CallOptions) => Promise<T>,
): Promise<T> {
  const options = { ...call.options, signal: c.req.raw.signal, sessionId: call.sessionId };
  const { route, observe, close } = await admitted(c, gateway, call);
  try {
    return await withMember(route, c.env?.SESSIONS, sessionObjectName(c, call.sessionId), (provider) =>
      complete(observe(provider), options),
    );
  } finally {
    close();
  }
}

/**
 * The SSE response of `stream` on the call's member, its events turned into frames by `toFrames`. A
 * failure before the first content event fails over and, within the hold, is a plain HTTP error; after
 * it, the stream's final `event: error` frame. The upstream call is aborted when the client leaves.
 */
export function streamOn(
  c: Context<Gateway>,
  gateway: RouteCalls,
  call: ModelCall,
  stream: (provider: Provider, options: CallOptions) => AsyncIterable<StreamEvent>,
  toFrames: (events: AsyncIterable<StreamEvent>) => FrameSource,
  /** The dialect's frames for a failure after the response started (default: modelwire's `event: error`). */
  errorFrames?: ErrorFrames,
): Promise<Response> {
  return framesOn(
    c,
    gateway,
    call,
    (provider, options) => contentStream(provider, (member) => stream(member, options)).then(toFrames),
    errorFrames,
  );
}

/**
 * The SSE response of frames a dialect opens on the call's member itself (`open`: a native passthrough,
 * or a converted stream): like {@link streamOn}, the member chosen (and failed over, while `open` rejects
 * with a retryable error) by the route, the upstream call aborted when the client leaves, a failure within
 * the hold a plain HTTP error and after it the dialect's `errorFrames`.
 */
export async function framesOn(
  c: Context<Gateway>,
  gateway: RouteCalls,
  call: ModelCall,
  open: (provider: Provider, options: CallOptions) => Promise<FrameSource | OpenedFrames>,
  errorFrames?: ErrorFrames,
): Promise<Response> {
  const { route, observe, close } = await admitted(c, gateway, call);
  const abort = linkedAbort(c.req.raw.signal);
  const options = { ...call.options, signal: abort.signal, sessionId: call.sessionId };
  const frames = withMember(route, c.env?.SESSIONS, sessionObjectName(c, call.sessionId), (provider) =>
    open(observe(provider), options),
  );
  // The members are chosen once the stream opened (or failed): the meter settles when its calls end.
  frames.then(close, close);
  return heldSseResponse(frames, {
    abort,
    context: { provider: "modelwire", model: call.route },
    expose: gateway.tables.exposeUpstreamErrors(c.env),
    holdMs: gateway.streamHoldMs,
    ...(errorFrames ? { errorFrames } : {}),
  });
}
