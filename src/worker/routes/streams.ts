/**
 * The resumable streams' routes (see `streams/resumable.ts`): `GET /v1/streams/:id` replays the stream
 * strictly after its `Last-Event-ID` (header; none: from the start) and follows it live until it ends;
 * `POST /v1/streams/:id/cancel` stops its call. Only the key (or gateway token) that started a stream
 * sees it: for anyone else it does not exist (404).
 *
 * @module
 */
import type { Context } from "hono";
import { ValidationError } from "../../core/validation-error.ts";
import type { Gateway } from "../env.ts";
import { HTTPConfigError } from "../gateway-error.ts";
import { Hono } from "../hono.ts";
import { isStreamId, streamObject, streamObjects, streamOwner } from "../streams/resumable.ts";

/** The stream routes of a gateway. */
export function streamRoutes(): Hono<Gateway> {
  const app = new Hono<Gateway>();

  const stubOf = (c: Context<Gateway>, id: string) => {
    const streams = streamObjects(c.env);
    if (!streams) {
      throw new HTTPConfigError("no STREAMS Durable Object binding: the Worker has no resumable streams");
    }
    return streamObject(streams, id);
  };
  const notFound = (id: string) =>
    Response.json({ error: { kind: "not_found", message: `no stream "${id}"` } }, { status: 404 });

  app.get("/v1/streams/:id", async (c) => {
    const id = c.req.param("id");
    if (!isStreamId(id)) return notFound(id);
    const after = lastEventId(c.req.header("last-event-id"));
    const reader = await stubOf(c, id).read(await streamOwner(c), after);
    return reader ?? notFound(id);
  });

  app.post("/v1/streams/:id/cancel", async (c) => {
    const id = c.req.param("id");
    if (!isStreamId(id)) return notFound(id);
    const cancelled = await stubOf(c, id).cancel(await streamOwner(c));
    return cancelled ? c.json({ id, status: cancelled.status }) : notFound(id);
  });

  return app;
}

/** `Last-Event-ID`: the id of the last event the client has (0, or none: from the start). */
function lastEventId(value: string | undefined): number {
  if (value === undefined || value.trim() === "") return 0;
  const id = Number(value.trim());
  if (!Number.isSafeInteger(id) || id < 0) {
    throw new ValidationError([
      { path: "Last-Event-ID", message: "an event id of this stream (an integer ≥ 0)" },
    ]);
  }
  return id;
}
