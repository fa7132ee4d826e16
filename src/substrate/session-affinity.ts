/**
 * Session affinity: a resolver evaluated on every call, and {@link affinityPool}, which keeps each session
 * on one of several equivalent upstreams (API keys, regions, replicas) until that member fails over.
 *
 * @module
 */

import { ValidationError } from "../core/validation-error.ts";
import type { AffinityCall } from "../providers/affinity.ts";

/**
 * The affinity of one call: `key` identifies the session (or task) it belongs to; `headers` / `query`
 * are what the request carries for a router to keep it on one replica.
 */
export interface SessionAffinity {
  key: string;
  headers?: Record<string, string> | undefined;
  query?: Record<string, string> | undefined;
}

/**
 * Computes a call's affinity, on every call — never frozen at construction, so affinity derived from the
 * current task follows the task. `undefined` adds nothing. A resolver that returns the same value whatever
 * the call declares static affinity. Pass it to a provider's `affinity` setting with `providerAffinity()`.
 */
export type SessionAffinityResolver = (call: AffinityCall) => SessionAffinity | undefined;

/**
 * Where pins live: a session key → the id of the member it is on. In memory by default; a Worker keeps it
 * in a Durable Object. `get` may be async; {@link AffinityPool.resolver} reads only a synchronous answer.
 */
export interface PinStore {
  get(key: string): string | undefined | Promise<string | undefined>;
  set(key: string, memberId: string): void | Promise<void>;
}

/** Options of {@link affinityPool}. */
export interface AffinityPoolOptions<M> {
  /** Relative weights, one per member (default: all 1). A member of weight 0 gets no new sessions. */
  weights?: readonly number[] | undefined;
  /** Stored pins; default an in-memory map owned by the pool. */
  pin?: PinStore | undefined;
  /**
   * A member's stable id, used for hashing and pins: default the member itself when it is a string, its
   * `id` when it has a string one, else its position. Give providers ids: their names repeat.
   */
  memberId?: ((member: M, index: number) => string) | undefined;
}

/** Several equivalent upstreams; each session sticks to one. */
export interface AffinityPool<M> {
  readonly members: readonly M[];
  /**
   * The member of session `key`: its stored pin when there is a valid one, else the member chosen by a
   * stable weighted hash of the key (rendezvous hashing), which is then pinned.
   */
  memberFor(key: string): Promise<M>;
  /**
   * Session `key`'s member failed over: re-pins the session to the next member by hash, skipping `failed`
   * (and every member passed in earlier failovers of this session, until all have been tried). Returns
   * the new member. The only way a pin moves.
   */
  failover(key: string, failed: M): Promise<M>;
  /**
   * A resolver for provider `affinity` settings: the call's session (`keyOf`, default its `sessionId`),
   * its member, and `target(member)`'s headers / query. It reads the pin store only when it answers
   * synchronously (the default store does); otherwise it uses the hash — `await memberFor()` first.
   */
  resolver(
    target: (member: M) => { headers?: Record<string, string>; query?: Record<string, string> },
    keyOf?: (call: AffinityCall) => string | undefined,
  ): SessionAffinityResolver;
}

/**
 * A pool of equivalent upstreams with sticky sessions.
 *
 * @example
 * ```ts
 * const replicas = affinityPool(["replica-a", "replica-b", "replica-c"], { weights: [2, 1, 1] });
 * const local = openaiChat({
 *   model: "Qwen/Qwen3-8B",
 *   endpoint: "vllm",
 *   affinity: providerAffinity(replicas.resolver((replica) => ({ headers: { "x-replica": replica } }))),
 * });
 * // Keys as members: each session keeps its key until that key fails over.
 * const keys = affinityPool(["key-1", "key-2"], { pin: durableObjectPins });
 * const key = await keys.memberFor(sessionId);
 * ```
 */
export function affinityPool<M>(
  members: readonly M[],
  options: AffinityPoolOptions<M> = {},
): AffinityPool<M> {
  if (!Array.isArray(members) || members.length === 0) {
    throw new ValidationError([{ path: "members", message: "an affinity pool needs at least one member" }]);
  }
  const weights = members.map((_, index) => options.weights?.[index] ?? 1);
  weights.forEach((weight, index) => {
    if (!(typeof weight === "number" && Number.isFinite(weight) && weight >= 0)) {
      throw new ValidationError([{ path: `weights[${index}]`, message: "must be a finite number ≥ 0" }]);
    }
  });
  if (options.weights && options.weights.length !== members.length) {
    throw new ValidationError([{ path: "weights", message: "needs one weight per member" }]);
  }
  const ids = members.map((member, index) => (options.memberId ?? defaultMemberId)(member, index));
  if (new Set(ids).size !== ids.length) {
    throw new ValidationError([{ path: "members", message: "member ids must be distinct (see memberId)" }]);
  }
  const memory = new Map<string, string>();
  const store: PinStore = options.pin ?? {
    get: (key) => memory.get(key),
    set: (key, id) => {
      memory.set(key, id);
    },
  };
  // Members a session has failed over from, so repeated failovers walk the pool instead of bouncing.
  const failedOver = new Map<string, Set<number>>();

  /** The best-scoring member for `key` among those not excluded (all, when every one is excluded). */
  const hashed = (key: string, excluded?: ReadonlySet<number>): number => {
    let best = -1;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (let pass = 0; pass < 2 && best < 0; pass++) {
      for (let index = 0; index < members.length; index++) {
        if (pass === 0 && excluded?.has(index)) continue;
        const weight = weights[index]!;
        // Weighted rendezvous hashing: score = -w / ln(u), u uniform in (0, 1) from the hash.
        const u = (mix(fnv1a(`${ids[index]}\u0000${key}`)) + 0.5) / 4294967296;
        const score = weight > 0 ? -weight / Math.log(u) : Number.NEGATIVE_INFINITY;
        if (score > bestScore || best < 0) {
          best = index;
          bestScore = score;
        }
      }
    }
    return best;
  };

  const indexOfId = (id: unknown): number => (typeof id === "string" ? ids.indexOf(id) : -1);

  const pin = async (key: string, index: number): Promise<void> => {
    try {
      await store.set(key, ids[index]!);
    } catch {
      // An unwritable store degrades to the hash, which is stable anyway.
    }
  };

  const indexFor = async (key: string): Promise<number> => {
    let stored: string | undefined;
    try {
      stored = await store.get(key);
    } catch {
      stored = undefined;
    }
    const pinned = indexOfId(stored);
    if (pinned >= 0) return pinned;
    const chosen = hashed(key);
    await pin(key, chosen);
    return chosen;
  };

  return {
    members,
    async memberFor(key) {
      return members[await indexFor(key)]!;
    },
    async failover(key, failed) {
      const failedIndex = members.indexOf(failed);
      const current = await indexFor(key);
      // Another call already moved this session off the failed member: keep its new pin.
      if (failedIndex >= 0 && current !== failedIndex) return members[current]!;
      let excluded = failedOver.get(key) ?? new Set<number>();
      excluded.add(current);
      // Every member has failed over once: start the walk again, still away from the current one.
      if (excluded.size >= members.length) excluded = new Set([current]);
      if (failedOver.size >= MAX_TRACKED_FAILOVERS) failedOver.clear();
      failedOver.set(key, excluded);
      const next = hashed(key, excluded);
      await pin(key, next);
      return members[next]!;
    },
    resolver(target, keyOf = (call) => call.sessionId) {
      return (call) => {
        const key = keyOf(call);
        if (!key) return undefined;
        let index = -1;
        try {
          const stored = store.get(key);
          if (typeof stored === "string") index = indexOfId(stored);
        } catch {
          index = -1;
        }
        if (index < 0) {
          index = hashed(key);
          const written = (() => {
            try {
              return store.set(key, ids[index]!);
            } catch {
              return undefined;
            }
          })();
          if (written instanceof Promise) written.catch(() => {});
        }
        return { key, ...target(members[index]!) };
      };
    },
  };
}

/** Sessions whose failover walk is remembered; beyond this the memory starts over (a bound, not a cache). */
const MAX_TRACKED_FAILOVERS = 10_000;

function defaultMemberId(member: unknown, index: number): string {
  if (typeof member === "string") return member;
  if (typeof member === "object" && member !== null) {
    const { id } = member as { id?: unknown };
    if (typeof id === "string") return id;
  }
  return String(index);
}

/** 32-bit FNV-1a over the UTF-16 code units of `text`. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** MurmurHash3's finaliser: FNV-1a alone spreads similar keys poorly over the high bits. */
function mix(hash: number): number {
  let h = hash;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
