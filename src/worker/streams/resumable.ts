/**
 * Resumable streams at the gateway's door: a streaming request to `/v1/stream`, `/v1/chat/completions`,
 * `/v1/messages` or `/v1/responses` that asks for it (`x-modelwire-resumable: 1`, or a route with
 * `"resumable": true`) runs in a `StreamObject` of its own instead of in the request (see
 * `stream-object.ts`): the answer carries `x-modelwire-stream-id`, every event an `id:`, and
 * `GET /v1/streams/:id` (with `Last-Event-ID`) reads it again — after a dropped connection, or after the
 * call finished. The client leaving does not stop the call; `POST /v1/streams/:id/cancel` does.
 *
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import { bytesToBase64url } from "../../core/base64.ts";
import { presentedToken } from "../auth.ts";
import type { Gateway, WorkerEnv } from "../env.ts";
import { HTTPConfigError } from "../gateway-error.ts";
import { keyHash } from "../keys/key-record.ts";
import type { RouteTables } from "../route-table.ts";
import type { StreamObjectBase } from "./stream-object.ts";

/** The request header that asks for a resumable stream (`1` or `true`). */
export const RESUMABLE_HEADER = "x-modelwire-resumable";
/** The response header naming the stream. */
export const STREAM_ID_HEADER = "x-modelwire-stream-id";
/** Marks the request a stream object runs, so it is not made resumable again. */
export const STREAM_RUN_HEADER = "x-modelwire-stream-run";
/** How long a finished stream is kept, by default. */
export const DEFAULT_STREAM_RETENTION_MS = 10 * 60_000;

/** The endpoints that stream, and where their body names the route. */
const STREAMING: Readonly<Record<string, "route" | "model">> = {
  "/v1/stream": "route",
  "/v1/chat/completions": "model",
  "/v1/messages": "model",
  "/v1/responses": "model",
};

const STREAM_ID = /^strm_[A-Za-z0-9_-]{22}$/;

/** The stream objects of `env`, when bound. */
export function streamObjects(
  env: WorkerEnv | undefined,
): DurableObjectNamespace<StreamObjectBase> | undefined {
  return env?.STREAMS;
}

/** The object of stream `id`. */
export function streamObject(
  streams: DurableObjectNamespace<StreamObjectBase>,
  id: string,
): DurableObjectStub<StreamObjectBase> {
  return streams.get(streams.idFromName(id));
}

/** Whether `id` has the shape of a stream id. */
export function isStreamId(id: string): boolean {
  return STREAM_ID.test(id);
}

/**
 * Who may read a stream: the virtual key that started it, or the gateway token (by its SHA-256, never
 * the token itself).
 */
export async function streamOwner(c: Context<Gateway>): Promise<string> {
  const principal = c.get("principal");
  if (principal?.kind === "key") return `key:${principal.id}`;
  const token = presentedToken(c.req.header("authorization"), c.req.header("x-api-key")) ?? "";
  return `token:${await keyHash(token)}`;
}

/** The middleware that runs resumable streaming requests in their stream object (after authentication). */
export function resumableStreams(options: {
  tables: RouteTables;
  retentionMs?: number | undefined;
  /** Makes the id of a new stream (default: `strm_` + 16 random bytes, base64url). */
  newId?: (() => string) | undefined;
}): MiddlewareHandler<Gateway> {
  const retentionMs = options.retentionMs ?? DEFAULT_STREAM_RETENTION_MS;
  const newId =
    options.newId ?? (() => `strm_${bytesToBase64url(crypto.getRandomValues(new Uint8Array(16)))}`);
  return async (c, next) => {
    const field = c.req.method === "POST" ? STREAMING[c.req.path] : undefined;
    if (field === undefined || c.req.header(STREAM_RUN_HEADER) !== undefined) return next();
    const asked = /^(1|true)$/i.test(c.req.header(RESUMABLE_HEADER)?.trim() ?? "");
    // The body is read here only when it may be resumable: asked for, or a route says so.
    if (!asked && !anyResumable(options.tables, c.env)) return next();
    const text = await c.req.text();
    let body: Record<string, unknown> | undefined;
    try {
      const value = JSON.parse(text) as unknown;
      if (typeof value === "object" && value !== null && !Array.isArray(value))
        body = value as Record<string, unknown>;
    } catch {
      // Not JSON: the route answers its 400.
    }
    if (!body) return next();
    const streaming = field === "route" || body.stream === true;
    const name = body[field];
    const routeAsks = typeof name === "string" && resumableRoute(options.tables, c.env, name);
    if (!streaming || !(asked || routeAsks)) return next();
    const streams = streamObjects(c.env);
    if (!streams)
      throw new HTTPConfigError("no STREAMS Durable Object binding: the Worker has no resumable streams");
    const id = newId();
    if (!isStreamId(id))
      throw new Error(`a stream id must be strm_ and 22 base64url characters, not "${id}"`);
    const headers: [string, string][] = [];
    c.req.raw.headers.forEach((value, header) => {
      if (header !== RESUMABLE_HEADER && header !== "content-length") headers.push([header, value]);
    });
    headers.push([STREAM_RUN_HEADER, id]);
    return streamObject(streams, id).start({
      id,
      owner: await streamOwner(c),
      url: c.req.url,
      method: "POST",
      headers,
      body: text,
      retentionMs,
    });
  };
}

/** Whether the route `name` is resumable; false when there is none, or the config cannot be read (the route says why). */
function resumableRoute(tables: RouteTables, env: WorkerEnv, name: string): boolean {
  try {
    return tables.of(env).routes.get(name)?.resumable === true;
  } catch {
    return false;
  }
}

/** Whether any route of `env`'s table is resumable (kept per table). */
function anyResumable(tables: RouteTables, env: WorkerEnv): boolean {
  let table: ReturnType<RouteTables["of"]>;
  try {
    table = tables.of(env);
  } catch {
    return false;
  }
  let known = resumableTables.get(table);
  if (known === undefined) {
    known = [...table.routes.values()].some((route) => route.resumable === true);
    resumableTables.set(table, known);
  }
  return known;
}

const resumableTables = new WeakMap<object, boolean>();
