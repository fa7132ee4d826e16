/**
 * The neutral API: `POST /v1/complete` (a `Response` as JSON) and `POST /v1/stream` (SSE of
 * `StreamEvent`s, each frame's `event:` its type, ending with `done` or `error`).
 *
 * @module
 */
import type { Context } from "hono";
import * as z from "zod/mini";
import { CallOptionsSchema, SessionIdSchema } from "../../core/call-options.ts";
import { MessageSchema } from "../../core/message.ts";
import { validate } from "../../core/validation-error.ts";
import { completeOn, type ModelCall, type RouteCalls, streamOn } from "../call-route.ts";
import type { Gateway } from "../env.ts";
import { Hono } from "../hono.ts";
import { headerSessionId, jsonBody } from "../request.ts";

const NeutralRequestSchema = z.strictObject({
  route: z.string().check(z.minLength(1)),
  messages: z.array(MessageSchema).check(z.minLength(1)),
  tools: z.optional(
    z.array(
      z.strictObject({
        name: z.string(),
        description: z.optional(z.string()),
        parameters: z.optional(z.record(z.string(), z.unknown())),
        strict: z.optional(z.boolean()),
      }),
    ),
  ),
  options: z.optional(CallOptionsSchema),
  sessionId: z.optional(SessionIdSchema),
});

/** The neutral routes of a gateway. */
export function neutralRoutes(gateway: RouteCalls): Hono<Gateway> {
  const app = new Hono<Gateway>();

  app.post("/v1/complete", async (c) => {
    const request = validate(NeutralRequestSchema, await jsonBody(c));
    const response = await completeOn(c, gateway, callOf(request, c), (provider, options) =>
      provider.complete(request.messages, request.tools, options),
    );
    return c.json(response);
  });

  app.post("/v1/stream", async (c) => {
    const request = validate(NeutralRequestSchema, await jsonBody(c));
    return streamOn(
      c,
      gateway,
      callOf(request, c),
      (provider, options) => provider.stream(request.messages, request.tools, options),
      // The stream ends with `done` or throws (see `openStream`): the SSE never ends cleanly without done.
      async function* (events) {
        for await (const event of events) yield { data: event, event: event.type };
      },
    );
  });

  return app;
}

/** A session from the body or the header both pin the member and reach the provider (affinity token). */
function callOf(request: z.output<typeof NeutralRequestSchema>, c: Context<Gateway>): ModelCall {
  return {
    route: request.route,
    sessionId: request.sessionId ?? request.options?.sessionId ?? headerSessionId(c),
    options: request.options,
  };
}
