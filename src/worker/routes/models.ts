/**
 * `GET /v1/models`: the served routes as an OpenAI model list, so OpenAI clients can discover them.
 *
 * @module
 */
import { Hono } from "hono";
import type { Gateway } from "../env.ts";
import type { RouteTables } from "../route-table.ts";

/** The model list route of a gateway. */
export function modelRoutes(tables: RouteTables): Hono<Gateway> {
  const app = new Hono<Gateway>();

  app.get("/v1/models", (c) => {
    // Only the routes that are served: a route with a configuration problem is not a model to call.
    const table = tables.forRequest(c.env);
    return c.json({
      object: "list",
      data: [...table.routes.keys()].map((alias) => ({
        id: alias,
        object: "model",
        created: 0,
        owned_by: "modelwire",
      })),
    });
  });

  return app;
}
