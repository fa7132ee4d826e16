/**
 * Session affinity for routers in front of model replicas (vLLM fleets, gateways): a header or query
 * parameter that keeps one conversation on one replica, so its prompt cache is reused.
 *
 * @module
 */

/** What a resolver sees of a call. */
export interface AffinityCall {
  sessionId: string | undefined;
  model: string;
}

/** What a resolver adds to a request. */
export interface AffinityTarget {
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

/** Computes the affinity of one call; `undefined` adds nothing. Called per call, never cached. */
export type AffinityResolver = (call: AffinityCall) => AffinityTarget | undefined;

/**
 * Affinity from the call's `sessionId`: `header` and/or `query` set to it (calls without a session id get
 * nothing).
 *
 * @example
 * ```ts
 * openaiChat({ model, baseURL, endpoint: "vllm", affinity: sessionAffinity({ header: "x-session-id" }) });
 * ```
 */
export function sessionAffinity(options: { header?: string; query?: string }): AffinityResolver {
  return ({ sessionId }) => {
    if (!sessionId) return undefined;
    const target: AffinityTarget = {};
    if (options.header) target.headers = { [options.header]: sessionId };
    if (options.query) target.query = { [options.query]: sessionId };
    return target;
  };
}

/** The same header and/or query value on every call, whatever the session. */
export function staticAffinity(options: {
  header?: string;
  query?: string;
  value: string;
}): AffinityResolver {
  const target: AffinityTarget = {};
  if (options.header) target.headers = { [options.header]: options.value };
  if (options.query) target.query = { [options.query]: options.value };
  return () => target;
}

/** Applies a resolver to a request's URL and headers (copies; the inputs are not changed). */
export function applyAffinity(
  resolver: AffinityResolver | undefined,
  request: { url: string; headers: Record<string, string>; sessionId: string | undefined; model: string },
): { url: string; headers: Record<string, string> } {
  const target = resolver?.({ sessionId: request.sessionId, model: request.model });
  if (!target) return { url: request.url, headers: request.headers };
  const headers = target.headers ? { ...request.headers, ...target.headers } : request.headers;
  let url = request.url;
  if (target.query && Object.keys(target.query).length > 0) {
    const parsed = new URL(request.url);
    for (const [key, value] of Object.entries(target.query)) parsed.searchParams.set(key, value);
    url = parsed.toString();
  }
  return { url, headers };
}
