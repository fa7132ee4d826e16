/**
 * `GET /v1/models`: the served routes as an OpenAI model list, so OpenAI clients can discover them.
 *
 * @module
 */

import type { Gateway } from "../env.ts";
import { Hono } from "../hono.ts";
import { aliasesOf } from "../keys/gateway-keys.ts";
import { routeAllowed } from "../keys/key-record.ts";
import type { RouteTables } from "../route-table.ts";

/** The model list route of a gateway. */
export function modelRoutes(tables: RouteTables): Hono<Gateway> {
  const app = new Hono<Gateway>();

  app.get("/v1/models", (c) => {
    // Only the routes that are served: a route with a configuration problem is not a model to call.
    const table = tables.forRequest(c.env);
    const principal = c.get("principal");
    // A virtual key sees the routes it may call.
    const names = [...table.routes.entries()]
      .filter(
        ([, route]) =>
          principal?.kind !== "key" ||
          routeAllowed(principal.record, route.alias, aliasesOf(table.routes, route)),
      )
      .map(([name]) => name);
    return c.json({
      object: "list",
      data: names.map((alias) => ({
        id: alias,
        object: "model",
        created: 0,
        owned_by: "modelwire",
      })),
    });
  });

  return app;
}
