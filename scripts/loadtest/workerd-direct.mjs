// The gateway under workerd itself, without wrangler dev's local proxy in front: the Worker bundled by
// `wrangler deploy --dry-run` (as a deployment would be), served by the `workerd` binary from a minimal
// config on 127.0.0.1, with the stateless routes only (no Durable Object is bound: the scenario that
// uses it, d, calls plain routes). Scenario d runs against both this and wrangler dev, because the two
// deliver a client's disconnect differently.
import { execFileSync, spawn } from "node:child_process";
import { closeSync, openSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { request, sleep } from "./http.mjs";
import { freePort } from "./wrangler-dev.mjs";

/** Cap'n Proto text for one string, quoted. */
const capnpString = (text) => JSON.stringify(text);

/**
 * Bundles the gateway and starts workerd serving it. Resolves to `{ pid, url, stop() }` once `/health`
 * answers; rejects with the log's tail otherwise.
 */
export async function startWorkerdDirect({
  root,
  config,
  tmp,
  vars,
  compatibilityDate,
  compatibilityFlags,
  waitMs = 15_000,
}) {
  const bin = join(root, "node_modules/.bin");
  const out = join(tmp, "workerd-bundle");
  execFileSync(join(bin, "wrangler"), ["deploy", "--dry-run", "--outdir", out, "--config", config], {
    cwd: root,
    env: {
      ...process.env,
      PATH: `${bin}:${process.env.PATH ?? ""}`,
      WRANGLER_SEND_METRICS: "false",
      WRANGLER_HIDE_BANNER: "true",
    },
    stdio: "ignore",
    timeout: 30_000,
  });
  const entry = readdirSync(out).find((name) => name.endsWith(".js"));
  if (!entry) throw new Error(`workerd-direct: no bundle in ${out}`);
  const port = await freePort();
  const bindings = Object.entries(vars)
    .map(([name, value]) => `(name = ${capnpString(name)}, text = ${capnpString(value)})`)
    .join(", ");
  const capnp = join(out, "config.capnp");
  writeFileSync(
    capnp,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .gateway),
    (name = "internet", network = (allow = ["private", "public", "local"], tlsOptions = (trustBrowserCas = true))),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const gateway :Workerd.Worker = (
  modules = [(name = ${capnpString(entry)}, esModule = embed ${capnpString(entry)})],
  compatibilityDate = ${capnpString(compatibilityDate)},
  compatibilityFlags = [${compatibilityFlags.map(capnpString).join(", ")}],
  bindings = [${bindings}],
);
`,
  );
  const logPath = join(tmp, "workerd-direct.log");
  const log = openSync(logPath, "a");
  const child = spawn(join(bin, "workerd"), ["serve", capnp], {
    cwd: out,
    stdio: ["ignore", log, log],
    detached: true,
  });
  closeSync(log);
  const url = `http://127.0.0.1:${port}`;
  const stop = () => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  };
  const until = performance.now() + waitMs;
  while (performance.now() < until) {
    if (child.exitCode !== null) break;
    const health = await request(`${url}/health`, { timeoutMs: 1000 });
    if (health.status === 200) return { pid: child.pid, url, stop };
    await sleep(100);
  }
  stop();
  throw new Error(`workerd did not answer /health:\n${readFileSync(logPath, "utf8").slice(-2000)}`);
}
