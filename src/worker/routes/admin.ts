/**
 * The admin API, behind the `ADMIN_TOKENS` secret (the app's middleware checks it; gateway tokens and
 * virtual keys are refused here):
 *
 * - `POST /v1/admin/keys`: a new virtual key; the answer holds its text (`key`) — the only time it is
 *   shown — beside its record;
 * - `GET /v1/admin/keys` (`?limit=1..100&after=<id>`: pages in id order), `GET /v1/admin/keys/:id` (the
 *   record and where its limits stand);
 * - `PATCH /v1/admin/keys/:id` (the fields given; `null` removes a limit): on the next request;
 * - `DELETE /v1/admin/keys/:id`: the key is refused from then on; its usage stays;
 * - `GET /v1/admin/usage?from&to&groupBy=key|route|model`: usage and cost of the hours in `[from, to)`
 *   (ISO 8601 or epoch ms; default the last 24 hours), summed per group.
 *
 * Answers are JSON; failures are modelwire's `{error: {kind, message}}`.
 *
 * @module
 */

import { ValidationError, type ValidationIssue } from "../../core/validation-error.ts";
import type { Gateway } from "../env.ts";
import { HTTPConfigError } from "../gateway-error.ts";
import { Hono } from "../hono.ts";
import { keyObject, keyObjects, staticTokenObjects } from "../keys/gateway-keys.ts";
import { DIRECTORY, type KeyObject, MAX_KEYS, STATIC_TOKENS } from "../keys/key-object.ts";
import { isKeyId, keyPatchOf, newKey, newKeyRecord } from "../keys/key-record.ts";
import { groupUsage, HOUR_MS, type UsageGroup, type UsageRow } from "../keys/usage-rows.ts";
import { jsonBody } from "../request.ts";

/** The longest span a usage query covers. */
const MAX_USAGE_SPAN_MS = 400 * 24 * HOUR_MS;
/** How many key objects a usage query reads at once. */
const USAGE_READS_AT_ONCE = 16;

/** The admin routes of a gateway. */
export function adminRoutes(): Hono<Gateway> {
  const app = new Hono<Gateway>();

  const keysOf = (env: Gateway["Bindings"]): DurableObjectNamespace<KeyObject> => {
    const keys = keyObjects(env);
    if (!keys) throw new HTTPConfigError("no KEYS Durable Object binding: the Worker has no virtual keys");
    return keys;
  };
  const notFound = (id: string) =>
    Response.json({ error: { kind: "not_found", message: `no key "${id}"` } }, { status: 404 });

  app.post("/v1/admin/keys", async (c) => {
    const keys = keysOf(c.env);
    const body = await jsonBody(c);
    const now = Date.now();
    const { id, key, hash } = await newKey();
    const record = newKeyRecord(body, id, now);
    // The key first, then its listing: a key that was never listed is revoked again, never left behind.
    const stub = keyObject(keys, id);
    if (!(await stub.create(record, hash))) throw new Error("a new key's id is taken");
    let listed = false;
    try {
      listed = await keyObject(keys, DIRECTORY).register(id, now);
    } finally {
      if (!listed) await stub.revoke(now);
    }
    if (!listed) {
      return Response.json(
        {
          error: {
            kind: "conflict",
            message: `the gateway holds ${MAX_KEYS} keys, its most; delete one first`,
          },
        },
        { status: 409 },
      );
    }
    return c.json({ ...record, key }, 201);
  });

  app.get("/v1/admin/keys", async (c) => {
    const keys = keysOf(c.env);
    const limit = pageLimit(c.req.query("limit"));
    const after = c.req.query("after");
    if (after !== undefined && !isKeyId(after)) {
      throw new ValidationError([{ path: "after", message: "not a key id (16 hex digits)" }]);
    }
    const entries = await keyObject(keys, DIRECTORY).list(after, limit);
    const records = await Promise.all(entries.map((entry) => keyObject(keys, entry.id).record()));
    const data = records.filter((record) => record !== undefined);
    return c.json({
      object: "list",
      data,
      has_more: entries.length === limit,
      ...(entries.length > 0 ? { last_id: entries[entries.length - 1]!.id } : {}),
    });
  });

  app.get("/v1/admin/keys/:id", async (c) => {
    const id = c.req.param("id");
    if (!isKeyId(id)) return notFound(id);
    const stub = keyObject(keysOf(c.env), id);
    const record = await stub.record();
    if (!record) return notFound(id);
    return c.json({ ...record, state: await stub.state() });
  });

  app.patch("/v1/admin/keys/:id", async (c) => {
    const id = c.req.param("id");
    const patch = keyPatchOf(await jsonBody(c));
    if (!isKeyId(id)) return notFound(id);
    const record = await keyObject(keysOf(c.env), id).update(patch, Date.now());
    return record ? c.json(record) : notFound(id);
  });

  app.delete("/v1/admin/keys/:id", async (c) => {
    const id = c.req.param("id");
    if (!isKeyId(id)) return notFound(id);
    const keys = keysOf(c.env);
    const now = Date.now();
    const revoked = await keyObject(keys, id).revoke(now);
    // Unlisted whatever the key's object said: a listing left by a failed create goes too.
    await keyObject(keys, DIRECTORY).unregister(id, now);
    return revoked ? c.json({ id, deleted: true }) : notFound(id);
  });

  app.get("/v1/admin/usage", async (c) => {
    const keys = keysOf(c.env);
    const now = Date.now();
    const issues: ValidationIssue[] = [];
    const to = timeOf(c.req.query("to"), "to", issues) ?? now;
    const from = timeOf(c.req.query("from"), "from", issues) ?? to - 24 * HOUR_MS;
    const groupBy = (c.req.query("groupBy") ?? "key") as UsageGroup;
    if (!["key", "route", "model"].includes(groupBy))
      issues.push({ path: "groupBy", message: "one of key, route, model" });
    if (issues.length > 0) throw new ValidationError(issues);
    if (from >= to) issues.push({ path: "from", message: "must be before `to`" });
    else if (to - from > MAX_USAGE_SPAN_MS)
      issues.push({ path: "from", message: "at most 400 days before `to`" });
    if (issues.length > 0) throw new ValidationError(issues);

    // Every key that can have usage in the range (one deleted before it cannot), and the objects of the
    // GATEWAY_TOKENS: one read each, at most USAGE_READS_AT_ONCE at a time.
    const entries = await keyObject(keys, DIRECTORY).all();
    const reads: { object: string; key: string }[] = [
      ...staticTokenObjects().map((object) => ({ object, key: STATIC_TOKENS })),
      ...entries
        .filter((entry) => entry.deletedAt === undefined || entry.deletedAt >= from - HOUR_MS)
        .map((entry) => ({ object: entry.id, key: entry.id })),
    ];
    const names = new Map<string, string>([[STATIC_TOKENS, "GATEWAY_TOKENS"]]);
    const rows: (UsageRow & { key: string })[] = [];
    for (let start = 0; start < reads.length; start += USAGE_READS_AT_ONCE) {
      const batch = reads.slice(start, start + USAGE_READS_AT_ONCE);
      const read = await Promise.all(
        batch.map(async ({ object, key }) => {
          const usage = await keyObject(keys, object).usageOf(from, to);
          if (usage.name !== undefined) names.set(key, usage.name);
          return usage.rows.map((row) => ({ ...row, key }));
        }),
      );
      for (const list of read) rows.push(...list);
    }
    const { data, total } = groupUsage(rows, groupBy, names);
    return c.json({
      object: "usage",
      from: new Date(Math.floor(from / HOUR_MS) * HOUR_MS).toISOString(),
      to: new Date(to).toISOString(),
      groupBy,
      data,
      total,
    });
  });

  return app;
}

/** `?limit`: 1 to 100, default 100. */
function pageLimit(text: string | undefined): number {
  if (text === undefined) return 100;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > 100) {
    throw new ValidationError([{ path: "limit", message: "an integer from 1 to 100" }]);
  }
  return value;
}

/** A query time: ISO 8601 or epoch milliseconds; undefined when not given (or bad: an issue is added). */
function timeOf(text: string | undefined, name: string, issues: ValidationIssue[]): number | undefined {
  if (text === undefined || text === "") return undefined;
  const value = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (Number.isFinite(value)) return value;
  issues.push({ path: name, message: "not an ISO 8601 date-time or epoch milliseconds" });
  return undefined;
}
