/**
 * `GET /v1/sessions/:id` (a session's pins) and `DELETE /v1/sessions/:id` (forget them). A session exists
 * once a pool route has pinned it; reading or clearing one that does not is a 404 and writes nothing. A
 * virtual key sees only its own sessions (`sessionObjectName`).
 *
 * @module
 */
import type { Context } from "hono";
import { SessionIdSchema } from "../../core/call-options.ts";
import { validate } from "../../core/validation-error.ts";
import type { Gateway } from "../env.ts";
import { HTTPConfigError } from "../gateway-error.ts";
import { Hono } from "../hono.ts";
import { sessionObjectName } from "../keys/gateway-keys.ts";

/** The session routes of a gateway. */
export function sessionRoutes(): Hono<Gateway> {
  const app = new Hono<Gateway>();

  app.get("/v1/sessions/:id", async (c) => {
    const id = validate(SessionIdSchema, c.req.param("id"), "id");
    const pins = await sessionStub(c, id).pins();
    if (pins === undefined) return noSession(c, id);
    return c.json({ id, pins });
  });

  app.delete("/v1/sessions/:id", async (c) => {
    const id = validate(SessionIdSchema, c.req.param("id"), "id");
    const cleared = await sessionStub(c, id).clear();
    if (cleared === undefined) return noSession(c, id);
    return c.json({ id, cleared });
  });

  return app;
}

function sessionStub(c: Context<Gateway>, id: string) {
  const sessions = c.env?.SESSIONS;
  if (!sessions) throw new HTTPConfigError("the SESSIONS Durable Object binding is missing");
  return sessions.get(sessions.idFromName(sessionObjectName(c, id)));
}

function noSession(c: Context<Gateway>, id: string) {
  return c.json({ error: { kind: "not_found", message: `no session "${id}"` } }, 404);
}
