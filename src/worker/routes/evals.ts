/**
 * Evals from the edge: `POST /v1/evals` runs a suite (`modelwire/eval`'s `runEval`) against the gateway's
 * own routes — the production configs, keys and pools — and answers with the report as JSON and as its
 * Markdown table. The suite is one registered in code (`createWorker({ evalSuites })`: function checkers
 * and tools allowed) or sent in the body (declarative checkers only: `exact`, `boxed`, `jsonSchema`).
 *
 * Every call goes through the route as a client's would: the request's key meters it (limits, budgets and
 * usage), its member is chosen per run (`sessionId` `eval:<task>:<sample>`), and a client that leaves
 * aborts the calls in flight. The eval runs within the request, so it is small by rule: at most
 * {@link MAX_WORKER_EVAL_RUNS} runs (a Worker invocation's subrequests are limited); run larger suites with
 * the CLI.
 *
 * @module
 */

import * as z from "zod/mini";
import { CallOptionsSchema } from "../../core/call-options.ts";
import type { MessageInput } from "../../core/message.ts";
import { MessageSchema } from "../../core/message.ts";
import type { Provider } from "../../core/provider.ts";
import { ValidationError, validate } from "../../core/validation-error.ts";
import { evalMarkdown } from "../../eval/eval-markdown.ts";
import type { JsonSchema } from "../../eval/json-schema-issues.ts";
import { type EvalRoute, type EvalSuite, runEval } from "../../eval/run-eval.ts";
import { completeOn, type RouteCalls } from "../call-route.ts";
import type { Gateway } from "../env.ts";
import { Hono } from "../hono.ts";
import { jsonBody } from "../request.ts";

/** Most runs (tasks × routes × samples) of one `POST /v1/evals`. */
export const MAX_WORKER_EVAL_RUNS = 200;

const CheckSchema = z.union([
  z.strictObject({ exact: z.string(), trim: z.optional(z.boolean()), ignoreCase: z.optional(z.boolean()) }),
  z.strictObject({ boxed: z.string() }),
  z.strictObject({ jsonSchema: z.record(z.string(), z.unknown()) }),
]);

const SuiteSchema = z.strictObject({
  name: z.string().check(z.minLength(1), z.maxLength(200)),
  tasks: z
    .array(
      z.strictObject({
        id: z
          .string()
          .check(z.regex(/^[\x21-\x7e]{1,128}$/, "1 to 128 printable ASCII characters, no spaces")),
        messages: z.array(MessageSchema).check(z.minLength(1)),
        check: CheckSchema,
        maxSteps: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(16))),
        callOptions: z.optional(CallOptionsSchema),
      }),
    )
    .check(z.minLength(1), z.maxLength(100)),
  maxSteps: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(16))),
  callOptions: z.optional(CallOptionsSchema),
});

const EvalRequestSchema = z.strictObject({
  /** A registered suite's name, or a suite. */
  suite: z.union([z.string().check(z.minLength(1)), SuiteSchema]),
  routes: z.array(z.string().check(z.minLength(1))).check(z.minLength(1), z.maxLength(8)),
  samples: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(50))),
  concurrency: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(8))),
  timeoutMs: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(300_000))),
});

/** The eval route of a gateway whose registered suites are `suites`. */
export function evalRoutes(gateway: RouteCalls, suites: Readonly<Record<string, EvalSuite>>): Hono<Gateway> {
  const app = new Hono<Gateway>();

  app.post("/v1/evals", async (c) => {
    const request = validate(EvalRequestSchema, await jsonBody(c));
    let suite: EvalSuite;
    if (typeof request.suite === "string") {
      if (!Object.hasOwn(suites, request.suite))
        throw new ValidationError([
          {
            path: "suite",
            message: `no suite "${request.suite}"; registered: ${Object.keys(suites).join(", ") || "none"}`,
          },
        ]);
      suite = suites[request.suite]!;
    } else {
      suite = request.suite as EvalSuite & { tasks: { check: { jsonSchema?: JsonSchema } }[] };
    }
    const samples = request.samples ?? 1;
    const runs = suite.tasks.length * request.routes.length * samples;
    if (runs > MAX_WORKER_EVAL_RUNS)
      throw new ValidationError([
        {
          path: "samples",
          message: `${runs} runs (tasks × routes × samples) is over the ${MAX_WORKER_EVAL_RUNS} one request may make; run it with the CLI`,
        },
      ]);
    const table = gateway.tables.of(c.env);
    const routes: EvalRoute[] = request.routes.map((alias) => {
      // A route that is not served answers as a call to it would (404, or the 500 naming its problems).
      gateway.tables.route(c.env, alias);
      return {
        name: alias,
        provider: routeProvider(c, gateway, alias),
        prices: (model) => table.prices.get(model),
      };
    });
    const report = await runEval({
      suite,
      routes,
      samples,
      concurrency: request.concurrency ?? 4,
      signal: c.req.raw.signal,
      ...(request.timeoutMs === undefined ? {} : { timeoutMs: request.timeoutMs }),
    });
    return c.json({ report, markdown: evalMarkdown(report) });
  });

  return app;
}

/**
 * A provider that calls the route as a client request would (`completeOn`: the key's meter, the member for
 * the run's session, the request's signal); its stream is the whole answer as one `done` event.
 */
function routeProvider(c: Parameters<typeof completeOn>[0], gateway: RouteCalls, alias: string): Provider {
  const complete: Provider["complete"] = (messages, tools, options = {}) => {
    const { signal, sessionId, ...rest } = options;
    return completeOn(c, gateway, { route: alias, sessionId, options: rest }, (provider, callOptions) =>
      provider.complete(messages as MessageInput[], tools, {
        ...callOptions,
        signal: signal ? AbortSignal.any([callOptions.signal!, signal]) : callOptions.signal!,
      }),
    );
  };
  return {
    name: "modelwire",
    model: alias,
    protocol: "modelwire",
    complete,
    async *stream(messages, tools, options) {
      yield { type: "done", response: await complete(messages, tools, options) };
    },
  };
}
