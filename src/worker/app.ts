/**
 * The Worker's Hono app, built by a factory so tests can create one per case.
 *
 * @module
 */
import { Hono } from "hono";
import { VERSION } from "../index.ts";

/** Builds the Worker's HTTP app. */
export function createApp(): Hono {
  const app = new Hono();
  app.get("/health", (c) => c.json({ ok: true, name: "modelwire", version: VERSION }));
  app.notFound((c) =>
    c.json({ error: { kind: "not_found", message: `No route for ${c.req.method} ${c.req.path}` } }, 404),
  );
  return app;
}
