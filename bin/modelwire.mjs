#!/usr/bin/env node
// `npx modelwire eval suite.ts --route claude --route local-vllm --samples 5`: runs an eval suite
// (`modelwire/eval`) on routes of a gateway config (the Worker's MODELWIRE_CONFIG format: keys read from the
// environment variables its `apiKeySecret` fields name), prints progress to stderr and the Markdown table to
// stdout, and writes the whole report as JSON with `--json out.json`. Node 22.18+ loads a `.ts` suite as is.
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const USAGE = `usage: modelwire eval <suite.ts|.js|.mjs> --route <name> [--route <name> …]
  [--config <routes.json>]   the routes (MODELWIRE_CONFIG format); default: the MODELWIRE_CONFIG variable
  [--samples <n>]            runs of every task on every route (default 5)
  [--concurrency <n>]        runs at once (default 4)
  [--timeout-ms <n>]         a run taking longer fails as "timeout"
  [--json <out.json>]        write the whole report (every run) as JSON
  [--quiet]                  no progress on stderr`;

/** A usage error: printed with the usage, exit code 2. */
class UsageError extends Error {}

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === "--help" || command === "-h" || command === undefined) {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  if (command !== "eval") throw new UsageError(`unknown command "${command}"`);
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        route: { type: "string", multiple: true },
        config: { type: "string" },
        samples: { type: "string" },
        concurrency: { type: "string" },
        "timeout-ms": { type: "string" },
        json: { type: "string" },
        quiet: { type: "boolean" },
      },
    });
  } catch (error) {
    throw new UsageError(error.message);
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new UsageError("name one suite file");
  const routeNames = values.route ?? [];
  if (routeNames.length === 0) throw new UsageError("name at least one --route");
  const whole = (name, text, fallback) => {
    if (text === undefined) return fallback;
    if (!/^\d+$/.test(text)) throw new UsageError(`--${name} must be a whole number, got "${text}"`);
    return Number(text);
  };
  const samples = whole("samples", values.samples, 5);
  const concurrency = whole("concurrency", values.concurrency, 4);
  const timeoutMs = whole("timeout-ms", values["timeout-ms"], undefined);

  let config;
  if (values.config !== undefined) {
    try {
      config = readFileSync(values.config, "utf8");
    } catch (error) {
      throw new UsageError(`cannot read --config ${values.config}: ${error.message}`);
    }
  } else if (process.env.MODELWIRE_CONFIG) {
    config = process.env.MODELWIRE_CONFIG;
  } else {
    throw new UsageError("no routes: pass --config <routes.json> or set MODELWIRE_CONFIG");
  }

  const suitePath = resolve(positionals[0]);
  let module;
  try {
    module = await import(pathToFileURL(suitePath).href);
  } catch (error) {
    throw new UsageError(`cannot load the suite ${positionals[0]}: ${error.message}`);
  }
  const suite = module.default ?? module.suite;
  if (typeof suite !== "object" || suite === null)
    throw new UsageError(
      `${positionals[0]} exports no suite (export default { name, tasks } or export const suite)`,
    );

  const { runEval, evalMarkdown } = await import("modelwire/eval");
  const routes = await routesOf(config, routeNames);

  const report = await runEval({
    suite,
    routes,
    samples,
    concurrency,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    onProgress: values.quiet
      ? undefined
      : ({ done, total, run }) => {
          const verdict = run.pass ? "pass" : run.error ? `fail (${run.error.kind})` : "fail";
          process.stderr.write(
            `[${done}/${total}] ${run.task} on ${run.route} #${run.sample + 1}: ${verdict}, ${Math.round(run.latencyMs)} ms\n`,
          );
        },
  });
  process.stdout.write(evalMarkdown(report));
  if (values.json !== undefined) {
    writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
    if (!values.quiet) process.stderr.write(`report written to ${values.json}\n`);
  }
  return 0;
}

/**
 * The named routes of the config, built as the Worker builds them (`buildRoutes` of the Worker's config
 * module: the same schema, the same secret names, read here from the environment), priced by its `prices`.
 * The config module sits beside the Worker entry `modelwire/worker` resolves to (`app.ts` in this
 * repository's sources, `app.js` in the package); it does not load the Worker's HTTP layer.
 */
async function routesOf(config, names) {
  const app = import.meta.resolve("modelwire/worker");
  const { buildRoutes } = await import(
    new URL(app.endsWith(".ts") ? "./config.ts" : "./config.js", app).href
  );
  let table;
  try {
    table = buildRoutes(config, process.env);
  } catch (error) {
    throw new UsageError(`the route config: ${problems(error)}`);
  }
  return names.map((name) => {
    const broken = table.broken.get(table.brokenAliases.get(name) ?? name);
    if (broken)
      throw new UsageError(`route ${name}: ${broken.map((i) => `${i.path}: ${i.message}`).join("; ")}`);
    const route = table.routes.get(name);
    if (!route) {
      const served = [...table.routes.keys()].join(", ") || "none";
      const broken =
        table.broken.size > 0 ? `; not served (problems): ${[...table.broken.keys()].join(", ")}` : "";
      throw new UsageError(`no route "${name}" in the config; it serves ${served}${broken}`);
    }
    if (route.members.length > 1)
      process.stderr.write(
        `route ${name} is a pool: the eval runs on its first member (${route.members[0].model})\n`,
      );
    return { name, provider: route.members[0], prices: (model) => table.prices.get(model) };
  });
}

function problems(error) {
  return Array.isArray(error?.issues)
    ? error.issues.map((i) => `${i.path}: ${i.message}`).join("; ")
    : error.message;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    if (error instanceof UsageError) {
      process.stderr.write(`modelwire: ${error.message}\n${USAGE}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`modelwire: ${error?.stack ?? error}\n`);
      process.exitCode = 1;
    }
  },
);
