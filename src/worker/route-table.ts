/**
 * The gateway's routes, per environment: the config (`createWorker({ config })` or `MODELWIRE_CONFIG`)
 * built into a {@link RouteTable} once per env object and kept; each configuration problem logged once;
 * the lookups a request makes (a route by alias, whether upstream error bodies may be shown).
 *
 * @module
 */
import { ValidationError, type ValidationIssue } from "../core/validation-error.ts";
import type { CreateProviderOptions } from "../substrate/provider-from-config.ts";
import { buildRoutes, type Route, type RouteTable } from "./config.ts";
import { UnknownRouteError } from "./dialect-errors.ts";
import type { WorkerEnv } from "./env.ts";
import { HTTPConfigError } from "./gateway-error.ts";

/** Where {@link routeTables} reads its config and writes its problems. */
export interface RouteTablesOptions {
  /** Routes config; when unset, `MODELWIRE_CONFIG` from the environment. */
  config?: unknown;
  /** Passed to `createProvider` for every route. */
  providers?: CreateProviderOptions | undefined;
  /** Where configuration problems are logged, each once. */
  log: (message: string) => void;
}

/** The route tables of one gateway, one per environment object. */
export interface RouteTables {
  /**
   * The routes of `env`, built on first use. A config that cannot be read at all throws its
   * `ValidationError` (every time; logged once); a route with problems is left out, the others served.
   */
  of(env: WorkerEnv): RouteTable;
  /** {@link RouteTables.of} for a request: a config that cannot be read is the operator's 500. */
  forRequest(env: WorkerEnv): RouteTable;
  /**
   * The route `alias` for a request: a route left out for its problems is a 500 naming them; an alias
   * that is not configured is the client's 400, listing the configured ones.
   */
  route(env: WorkerEnv, alias: string): Route;
  /** Whether clients may see upstream error bodies; false when the config cannot be read. */
  exposeUpstreamErrors(env: WorkerEnv | undefined): boolean;
}

/** The route tables of a gateway built with `options`: cached per env object (a `WeakMap`). */
export function routeTables(options: RouteTablesOptions): RouteTables {
  const cache = new WeakMap<object, { table: RouteTable } | { error: ValidationError }>();
  const logged = new Set<string>();
  /** Each distinct configuration problem is logged once, in one line listing every field to fix. */
  const logOnce = (message: string) => {
    if (logged.has(message)) return;
    logged.add(message);
    options.log(message);
  };

  const of = (env: WorkerEnv): RouteTable => {
    let entry = cache.get(env);
    if (!entry) {
      try {
        const table = buildRoutes(options.config ?? env.MODELWIRE_CONFIG, env, options.providers);
        entry = { table };
        if (table.broken.size > 0) {
          const problems = [...table.broken.values()].flat().map(describe);
          logOnce(
            `modelwire: configuration: ${table.broken.size} route(s) not served (${[...table.broken.keys()].join(", ")}): ${problems.join("; ")}`,
          );
        }
      } catch (error) {
        if (!ValidationError.is(error)) throw error;
        entry = { error };
        logOnce(`modelwire: invalid configuration: ${error.issues.map(describe).join("; ")}`);
      }
      cache.set(env, entry);
    }
    if ("error" in entry) throw entry.error;
    return entry.table;
  };

  const forRequest = (env: WorkerEnv): RouteTable => {
    try {
      return of(env);
    } catch (error) {
      if (ValidationError.is(error))
        throw new HTTPConfigError(error.issues.map(describe).join("; "), error.issues);
      throw error;
    }
  };

  return {
    of,
    forRequest,
    route(env, alias) {
      const table = forRequest(env);
      const route = table.routes.get(alias);
      if (route) return route;
      // A route that is not served, asked for by its name or one of its aliases.
      const name = table.broken.has(alias) ? alias : table.brokenAliases.get(alias);
      const problems = name === undefined ? undefined : table.broken.get(name);
      if (problems) {
        throw new HTTPConfigError(
          `route "${name}" is not served: ${problems.map(describe).join("; ")}`,
          problems,
        );
      }
      throw new UnknownRouteError(alias, [
        {
          path: "route",
          message: `no route "${alias}"; configured: ${[...table.routes.keys()].join(", ") || "none"}`,
        },
      ]);
    },
    exposeUpstreamErrors(env) {
      try {
        return env ? of(env).exposeUpstreamErrors : false;
      } catch {
        return false;
      }
    },
  };
}

/** `path: message`, how a configuration issue is written in logs and errors. */
function describe(issue: ValidationIssue): string {
  return `${issue.path}: ${issue.message}`;
}
