/**
 * From the substrate's session-affinity resolver to the `affinity` setting of providers (`openaiChat`).
 *
 * @module
 */
import type { AffinityResolver } from "../providers/affinity.ts";
import type { SessionAffinityResolver } from "./session-affinity.ts";

/**
 * A provider `affinity` setting from a {@link SessionAffinityResolver}: the same per-call evaluation, with
 * the session `key` dropped (only headers and query go on the wire).
 *
 * @example
 * ```ts
 * const byTask: SessionAffinityResolver = ({ sessionId }) =>
 *   sessionId ? { key: sessionId, headers: { "x-session-affinity": sessionId } } : undefined;
 * openaiChat({ model, baseURL, endpoint: "vllm", affinity: providerAffinity(byTask) });
 * ```
 */
export function providerAffinity(resolver: SessionAffinityResolver): AffinityResolver {
  return (call) => {
    const affinity = resolver(call);
    if (!affinity) return undefined;
    const target: { headers?: Record<string, string>; query?: Record<string, string> } = {};
    if (affinity.headers) target.headers = affinity.headers;
    if (affinity.query) target.query = affinity.query;
    return target;
  };
}
