/**
 * The gateway's `Hono`: Hono's own class with its trie router alone. The default `Hono` routes through a
 * `SmartRouter` that picks the `RegExpRouter` and keeps the `TrieRouter` for patterns the first cannot
 * compile; both answer the same for every route pattern Hono accepts, and the gateway's routes (fixed paths,
 * `:id` parameters, the `/v1/*` middleware) fit either. One router is ~4.6 KB less minified Worker.
 *
 * @module
 */
import { HonoBase, type HonoOptions } from "hono/hono-base";
import { TrieRouter } from "hono/router/trie-router";
import type { BlankEnv, BlankSchema, Env, Schema } from "hono/types";

export class Hono<
  E extends Env = BlankEnv,
  S extends Schema = BlankSchema,
  BasePath extends string = "/",
> extends HonoBase<E, S, BasePath> {
  constructor(options: HonoOptions<E> = {}) {
    super({ ...options, router: options.router ?? new TrieRouter() });
  }
}
