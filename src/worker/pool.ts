/**
 * Calling a route's members: a route of one member is called as it is; a pool route picks the member the
 * session is pinned to (in the session's `SessionObject`; a random key without a session) and, on a
 * retryable failure before any output, fails over — re-pins — once per remaining member. A stream counts
 * as output from its first content event (`holdUntilContent`), so a member that sent only `usage` before
 * failing is failed over like one that failed at once.
 *
 * @module
 */
import type { Provider } from "../core/provider.ts";
import { ProviderError } from "../core/provider-error.ts";
import type { StreamEvent } from "../core/stream-event.ts";
import { holdUntilContent } from "../core/stream-guards.ts";
import { affinityPool } from "../substrate/session-affinity.ts";
import type { Route } from "./config.ts";
import type { SessionObject } from "./session-object.ts";

/** Where a pool keeps its sessions' pins: the `SESSIONS` binding, when there is one. */
export type PinStore = DurableObjectNamespace<SessionObject> | undefined;

/**
 * Calls `attempt` with the member of `route` for `sessionId`, failing over to the next member while the
 * error is retryable, carries no output (`partialOutput`) and members remain; otherwise the error is
 * raised as it is. Without a session (or without `sessions`) the member is chosen by weight per call and
 * nothing is pinned.
 */
export async function withMember<T>(
  route: Route,
  sessions: PinStore,
  sessionId: string | undefined,
  attempt: (provider: Provider) => Promise<T>,
): Promise<T> {
  if (route.members.length === 1) return attempt(route.members[0]!);
  const key = sessionId ?? crypto.randomUUID();
  const pins = sessionId && sessions ? sessions.get(sessions.idFromName(sessionId)) : undefined;
  const pool = affinityPool(
    route.members.map((_, index) => index),
    {
      weights: route.weights,
      memberId: (_member, index) => String(index),
      ...(pins
        ? {
            pin: {
              get: (_key: string) => pins.get(route.alias),
              set: async (_key: string, member: string) => {
                await pins.set(route.alias, member);
              },
            },
          }
        : {}),
    },
  );
  let member = await pool.memberFor(key);
  for (let tries = 0; ; tries++) {
    try {
      return await attempt(route.members[member]!);
    } catch (error) {
      const failure = ProviderError.is(error) ? error : undefined;
      if (!failure?.retryable || failure.partialOutput || tries >= route.members.length - 1) throw error;
      member = await pool.failover(key, member);
    }
  }
}

/**
 * Opens a stream on `route` for `sessionId` ({@link withMember}), resolving once a member's stream has
 * sent its first content event: a failure before that fails over and, if every member fails, rejects —
 * a plain HTTP error for the route. The stream resolved with ends with `done` or throws, and a failure
 * in it carries `partialOutput: true` (it goes into the SSE body; see `holdUntilContent`).
 */
export function openStream(
  route: Route,
  sessions: PinStore,
  sessionId: string | undefined,
  open: (provider: Provider) => AsyncIterable<StreamEvent>,
): Promise<AsyncIterable<StreamEvent>> {
  return withMember(route, sessions, sessionId, (provider) => contentStream(provider, open));
}

/**
 * `open(provider)`'s stream, resolved once it has sent its first content event (`holdUntilContent`): a
 * failure before that rejects, so the route fails over to its next member.
 */
export function contentStream(
  provider: Provider,
  open: (provider: Provider) => AsyncIterable<StreamEvent>,
): Promise<AsyncIterable<StreamEvent>> {
  return holdUntilContent(() => open(provider), { provider: provider.name, model: provider.model });
}
