/**
 * Virtual keys at the gateway's door and around its model calls:
 *
 * - {@link principalOf}: who a request's token is — one of the `GATEWAY_TOKENS` (no limits), or a virtual
 *   key known to its `KeyObject` (not disabled, not expired);
 * - {@link admitCall}: before a model call, the key's object admits it or refuses it (a
 *   {@link GatewayRefusal}: 429 with `Retry-After`, 403 for a route it may not use, 401 for a key revoked
 *   since) — the upstream is never called then;
 * - the {@link CallMeter} it returns observes each upstream call of the request and records its usage and
 *   cost with the key's object (a `GATEWAY_TOKENS` call with the {@link STATIC_TOKENS} object), flushed
 *   with `waitUntil` so recording never delays a response.
 *
 * Without a `KEYS` binding there are no virtual keys and nothing is recorded.
 *
 * @module
 */
import type { Context } from "hono";
import type { Provider } from "../../core/provider.ts";
import { totalInputTokens, type Usage } from "../../core/usage.ts";
import type { TelemetrySink } from "../../substrate/telemetry.ts";
import type { Route } from "../config.ts";
import type { Gateway, Principal, WorkerEnv } from "../env.ts";
import { GatewayRefusal } from "../gateway-error.ts";
import { observedBy } from "../observe.ts";
import type { RouteTables } from "../route-table.ts";
import { estimatedCost, estimateRequest, priced } from "./estimate.ts";
import { type KeyObject, STATIC_TOKENS } from "./key-object.ts";
import { keyHash, keyIdOf } from "./key-record.ts";
import { windowTokensOf } from "./usage-rows.ts";

/** The key objects of `env`, when the Worker has them bound. */
export function keyObjects(env: WorkerEnv | undefined): DurableObjectNamespace<KeyObject> | undefined {
  return env?.KEYS;
}

/** The object named `name` (a key id, or one of the named roles). */
export function keyObject(
  keys: DurableObjectNamespace<KeyObject>,
  name: string,
): DurableObjectStub<KeyObject> {
  return keys.get(keys.idFromName(name));
}

/**
 * The virtual key `token` is, authenticated by its object: its principal, or a refusal's message
 * (disabled, expired); undefined when the token is not a key the gateway knows.
 */
export async function keyPrincipalOf(
  env: WorkerEnv | undefined,
  token: string,
): Promise<Principal | { refused: string } | undefined> {
  const keys = keyObjects(env);
  const id = keyIdOf(token);
  if (!keys || id === undefined) return undefined;
  const hash = await keyHash(token);
  const known = await keyObject(keys, id).authenticate(hash, Date.now());
  if ("refused" in known) return known.refused === "unknown" ? undefined : { refused: known.refused };
  return { kind: "key", id, hash, record: known.record };
}

/**
 * What a model call records its upstream calls with: wrap each member it calls (`observe`), and say when
 * the request has chosen its members (`close`) — it settles once every call it made has ended.
 */
export interface CallMeter {
  observe(provider: Provider): Provider;
  close(): void;
}

const NO_METER: CallMeter = { observe: (provider) => provider, close() {} };

/** How many objects record the `GATEWAY_TOKENS`' usage (each call picks one: no single hot object). */
export const STATIC_SHARDS = 16;

/** The names of the objects recording the `GATEWAY_TOKENS`' usage. */
export function staticTokenObjects(): string[] {
  return Array.from({ length: STATIC_SHARDS }, (_, index) => `${STATIC_TOKENS}:${index}`);
}

/**
 * Admits the request's model call on `route` for its principal (see the module comment), and the meter
 * that records its upstream calls. `metered: false` (`count_tokens`) checks the key and the route only,
 * and records nothing.
 */
export async function admitCall(
  c: Context<Gateway>,
  tables: RouteTables,
  route: Route,
  options: { metered?: boolean; log?: ((message: string) => void) | undefined } = {},
): Promise<CallMeter> {
  const keys = keyObjects(c.env);
  const principal = c.get("principal");
  if (!keys || !principal) return NO_METER;
  const metered = options.metered ?? true;
  const prices = tables.of(c.env).prices;
  const log = options.log;
  if (principal.kind === "token") {
    if (!metered) return NO_METER;
    const shard = staticTokenObjects()[Math.floor(Math.random() * STATIC_SHARDS)]!;
    return meter(c, keyObject(keys, shard), route, prices, undefined, log);
  }
  const body = c.get("body");
  const estimate = estimateRequest(body?.text ?? "", body?.value);
  const tokens = estimate.inputTokens + estimate.outputTokens;
  const cost = maxCost(route, estimate, prices);
  const stub = keyObject(keys, principal.id);
  const answer = await stub.admit({
    hash: principal.hash,
    route: route.alias,
    aliases: aliasesOf(tables.of(c.env).routes, route),
    tokens,
    cost: principal.record.budget ? cost : undefined,
    metered,
  });
  if (!answer.ok) throw new GatewayRefusal(answer);
  if (!metered) return NO_METER;
  return meter(c, stub, route, prices, { id: answer.admission, tokens, cost }, log);
}

/** The estimate's cost on the route's dearest member; undefined when one of them has no price. */
function maxCost(
  route: Route,
  estimate: Parameters<typeof estimatedCost>[0],
  prices: Parameters<typeof priced>[2],
): number | undefined {
  let most = 0;
  for (const member of route.members) {
    const cost = estimatedCost(estimate, member.model, prices);
    if (cost === undefined) return undefined;
    most = Math.max(most, cost);
  }
  return most;
}

/**
 * The name of a session's pin object for the request's principal: a virtual key's sessions are its own
 * (`key:<id>:<session>`), so no key reads, moves or clears another's pins; the gateway tokens share the
 * plain names.
 */
export function sessionObjectName(c: Context<Gateway>, sessionId: string): string;
export function sessionObjectName(c: Context<Gateway>, sessionId: string | undefined): string | undefined;
export function sessionObjectName(c: Context<Gateway>, sessionId: string | undefined): string | undefined {
  const principal = c.get("principal");
  return sessionId !== undefined && principal?.kind === "key"
    ? `key:${principal.id}:${sessionId}`
    : sessionId;
}

/** The names `route` answers to besides its own (its `aliases`): a key's `routes` may list any of them. */
export function aliasesOf(routes: ReadonlyMap<string, Route>, route: Route): string[] {
  const names: string[] = [];
  for (const [name, value] of routes) if (value === route && name !== route.alias) names.push(name);
  return names;
}

/**
 * A meter recording each upstream call of the request with `stub` (in the background: `waitUntil`), and
 * — for a key's admitted request — settling it once: the window's tokens and the spend are what its calls
 * reported, but never less than the admission's estimate when a call was cut after output went out (its
 * final usage never came) or its cost is unknown.
 */
function meter(
  c: Context<Gateway>,
  stub: DurableObjectStub<KeyObject>,
  route: Route,
  prices: Parameters<typeof priced>[2],
  admission: { id: number | undefined; tokens: number; cost: number | undefined } | undefined,
  log: ((message: string) => void) | undefined,
): CallMeter {
  const background = (what: string, sent: Promise<unknown>) => {
    const kept = sent.catch((error: unknown) => {
      // A lost record is lost usage, never a failed call.
      log?.(`modelwire: a usage ${what} was lost: ${error instanceof Error ? error.message : String(error)}`);
    });
    try {
      c.executionCtx.waitUntil(kept);
    } catch {
      // No execution context (a test calling `app.fetch` directly): it runs in the background.
    }
  };
  let open = 0;
  let closed = false;
  let settled = false;
  let tokens = 0;
  let usd = 0;
  /** A call's real cost is not known: the request is charged at least its estimate. */
  let unsure = false;
  const settle = () => {
    if (!closed || open > 0 || settled) return;
    settled = true;
    if (!admission) return;
    const charged = unsure ? Math.max(usd, admission.cost ?? 0) : usd;
    const counted = unsure ? Math.max(tokens, admission.tokens) : tokens;
    background("settlement", stub.settle(admission.id, counted, charged));
  };
  /** A call's record: under the model that answered, priced by it or else by the member's model id. */
  const ended = (model: string, member: string, usage: Usage | undefined, failed: boolean, cut: boolean) => {
    const cost = usage ? (priced(usage, model, prices) ?? priced(usage, member, prices)) : undefined;
    background("record", stub.recordCall({ route: route.alias, model, usage, cost, failed }));
    open--;
    tokens += windowTokensOf(usage);
    usd += cost ?? 0;
    if (cut || (cost === undefined && usage !== undefined && totalInputTokens(usage) !== undefined))
      unsure = true;
    settle();
  };
  const sink = (): TelemetrySink => ({
    onRequest: () => {
      open++;
    },
    onResponse: (event) => ended(event.responseModel || event.model, event.model, event.usage, false, false),
    onError: (event) => ended(event.model, event.model, event.usage, true, event.partialOutput),
  });
  return {
    observe: (provider) => observedBy(provider, sink),
    close: () => {
      closed = true;
      settle();
    },
  };
}
