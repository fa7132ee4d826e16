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
import type { Usage } from "../../core/usage.ts";
import type { TelemetrySink } from "../../substrate/telemetry.ts";
import type { Route } from "../config.ts";
import type { Gateway, Principal, WorkerEnv } from "../env.ts";
import { GatewayRefusal } from "../gateway-error.ts";
import { observedBy } from "../observe.ts";
import type { RouteTables } from "../route-table.ts";
import { estimatedCost, estimateRequest, priced } from "./estimate.ts";
import { type KeyObject, STATIC_TOKENS } from "./key-object.ts";
import { keyHash, keyIdOf } from "./key-record.ts";

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

/** What a model call records its upstream calls with: wrap each member it calls. */
export interface CallMeter {
  observe(provider: Provider): Provider;
}

const NO_METER: CallMeter = { observe: (provider) => provider };

/**
 * Admits the request's model call on `route` for its principal (see the module comment), and the meter
 * that records its upstream calls. `metered: false` (`count_tokens`) checks the key and the route only,
 * and records nothing.
 */
export async function admitCall(
  c: Context<Gateway>,
  tables: RouteTables,
  route: Route,
  options: { metered?: boolean } = {},
): Promise<CallMeter> {
  const keys = keyObjects(c.env);
  const principal = c.get("principal");
  if (!keys || !principal) return NO_METER;
  const metered = options.metered ?? true;
  const prices = tables.of(c.env).prices;
  if (principal.kind === "token") {
    return metered ? meter(c, keyObject(keys, STATIC_TOKENS), route, undefined, prices) : NO_METER;
  }
  const body = c.get("body");
  const estimate = estimateRequest(body?.text ?? "", body?.value);
  const model = route.members[0]!.model;
  const stub = keyObject(keys, principal.id);
  const answer = await stub.admit({
    hash: principal.hash,
    route: route.alias,
    aliases: aliasesOf(tables.of(c.env).routes, route),
    tokens: estimate.inputTokens + estimate.outputTokens,
    cost: principal.record.budget ? estimatedCost(estimate, model, prices) : undefined,
    metered,
  });
  if (!answer.ok) throw new GatewayRefusal(answer);
  return metered ? meter(c, stub, route, answer.admission, prices) : NO_METER;
}

/** The names `route` answers to besides its own (its `aliases`): a key's `routes` may list any of them. */
export function aliasesOf(routes: ReadonlyMap<string, Route>, route: Route): string[] {
  const names: string[] = [];
  for (const [name, value] of routes) if (value === route && name !== route.alias) names.push(name);
  return names;
}

/** A meter recording each upstream call of the request with `stub` (in the background: `waitUntil`). */
function meter(
  c: Context<Gateway>,
  stub: DurableObjectStub<KeyObject>,
  route: Route,
  admission: number | undefined,
  prices: Parameters<typeof priced>[2],
): CallMeter {
  /** A call's record: under the model that answered, priced by it or else by the member's model id. */
  const record = (model: string, member: string, usage: Usage | undefined, failed: boolean) => {
    const cost = usage ? (priced(usage, model, prices) ?? priced(usage, member, prices)) : undefined;
    const sent = stub.recordCall({ route: route.alias, model, usage, cost, failed, admission }).catch(() => {
      // A lost record is lost usage, never a failed call; the key's object logs nothing of it.
    });
    try {
      c.executionCtx.waitUntil(sent);
    } catch {
      // No execution context (a test calling `app.fetch` directly): it runs in the background.
    }
  };
  const sink = (): TelemetrySink => ({
    onResponse: (event) => record(event.responseModel || event.model, event.model, event.usage, false),
    onError: (event) => record(event.model, event.model, event.usage, true),
  });
  return { observe: (provider) => observedBy(provider, sink) };
}
