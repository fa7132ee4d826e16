// `wrangler dev` for the load test: started detached (its own process group, so the whole tree — wrangler,
// esbuild, workerd — can be stopped by that group and nothing else), on 127.0.0.1 and a free port, with
// the scripts/loadtest/wrangler.toml config, routes and token passed as --var, state in a temp dir, output
// in a log file. Also: finding workerd among its descendants and reading their CPU time from /proc.
import { execFileSync, spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { request, sleep } from "./http.mjs";

/** A port free on 127.0.0.1 now (the kernel's pick; it may be taken again before use, rarely). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * The `[[durable_objects.bindings]]` and `[[migrations]]` tables and the compatibility settings of a
 * wrangler.toml, as normalised text: enough to check that the load test's config matches the root one.
 */
export function bindingsOf(tomlText) {
  const wanted = [];
  let keep = false;
  let inMultiline = false;
  for (const raw of tomlText.split("\n")) {
    // Multi-line strings (MODELWIRE_CONFIG) are skipped whole: their lines are not tables or keys.
    const quotes = raw.split("'''").length - 1;
    if (inMultiline || quotes > 0) {
      if (quotes % 2 === 1) inMultiline = !inMultiline;
      if (inMultiline || quotes % 2 === 1) continue;
    }
    const line = raw.replace(/#.*$/, "").trim();
    if (line === "") continue;
    if (line.startsWith("[")) {
      keep = line === "[[durable_objects.bindings]]" || line === "[[migrations]]";
      if (keep) wanted.push(line);
      continue;
    }
    if (keep || /^compatibility_(date|flags)\s*=/.test(line)) wanted.push(line.replace(/\s+/g, " "));
  }
  return wanted.join("\n");
}

/**
 * Starts wrangler dev. Resolves to `{ pid, url, logPath, exited, … }` once `GET /health` answers 200, or
 * rejects (the error's `handle` set, to stop it and read its log) when wrangler exits first or `waitMs`
 * passes. The caller stops it with {@link stopWranglerDev}. `pid` is also the process group's id.
 */
export async function startWranglerDev({ root, config, tmp, vars, waitMs }) {
  const port = await freePort();
  const inspectorPort = await freePort();
  const logPath = join(tmp, "wrangler-dev.log");
  const log = openSync(logPath, "a");
  const bin = join(root, "node_modules/.bin");
  const args = [
    "dev",
    "--config",
    config,
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-port",
    String(inspectorPort),
    "--persist-to",
    join(tmp, "state"),
    "--show-interactive-dev-session=false",
    ...Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
  ];
  const child = spawn(join(bin, "wrangler"), args, {
    cwd: root,
    detached: true,
    stdio: ["ignore", log, log],
    env: {
      ...process.env,
      // Node 22 from node_modules first, as `npm run` would.
      PATH: `${bin}:${process.env.PATH ?? ""}`,
      WRANGLER_SEND_METRICS: "false",
      // No banner means no npm update check, and no Request.cf fetch: nothing of wrangler's own leaves
      // the machine (the Worker's only upstream is the fake one on 127.0.0.1).
      WRANGLER_HIDE_BANNER: "true",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      // wrangler's own files (debug logs, dev registry, user config) go to the temp dir, not $HOME.
      WRANGLER_LOG_PATH: join(tmp, "wrangler-logs"),
      WRANGLER_REGISTRY_PATH: join(tmp, "wrangler-registry"),
      XDG_CONFIG_HOME: join(tmp, "xdg-config"),
      FORCE_COLOR: "0",
    },
  });
  closeSync(log);
  const handle = {
    pid: child.pid,
    url: `http://127.0.0.1:${port}`,
    logPath,
    exited: undefined,
    stopping: false,
    stopped: false,
  };
  child.once("exit", (code, signal) => {
    handle.exited = { code, signal };
  });
  child.once("error", (error) => {
    handle.exited = { code: null, signal: null, error: error.message };
  });

  const until = performance.now() + waitMs;
  while (performance.now() < until) {
    if (handle.exited) {
      const error = new Error(
        `wrangler dev exited before answering /health (${JSON.stringify(handle.exited)})`,
      );
      error.handle = handle;
      throw error;
    }
    const health = await request(`${handle.url}/health`, {
      timeoutMs: Math.min(1000, until - performance.now()),
    });
    if (health.status === 200) return handle;
    await sleep(Math.min(200, until - performance.now()));
  }
  const error = new Error(`wrangler dev did not answer GET /health within ${Math.round(waitMs / 1000)} s`);
  error.handle = handle;
  throw error;
}

/**
 * Stops the process group we started: SIGTERM, then SIGKILL after `graceMs` (at once when 0), then waits
 * up to a second for it to be gone. Only that group: wrangler, esbuild and workerd run in it (spawned by
 * wrangler, which we started detached).
 */
export async function stopWranglerDev(handle, graceMs = 3000) {
  if (!handle?.pid) return;
  handle.stopping = true;
  const signalGroup = (signal) => {
    try {
      process.kill(-handle.pid, signal);
      return true;
    } catch {
      return false; // already gone
    }
  };
  if (handle.stopped) return;
  if (graceMs > 0) {
    if (!signalGroup("SIGTERM")) {
      handle.stopped = true;
      return;
    }
    const until = performance.now() + graceMs;
    while (performance.now() < until && groupAlive(handle.pid)) await sleep(100);
  }
  if (groupAlive(handle.pid)) signalGroup("SIGKILL");
  const until = performance.now() + 1000;
  while (performance.now() < until && groupAlive(handle.pid)) await sleep(50);
  // Gone: its pid may be reused from now on, so it is never signalled again.
  if (!groupAlive(handle.pid)) handle.stopped = true;
}

/** Synchronous last resort (process exit handlers): SIGKILL the group. */
export function killWranglerDevNow(handle) {
  if (!handle?.pid || handle.stopped) return;
  try {
    process.kill(-handle.pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** Whether any process of process group `pgid` is still alive. */
function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `/proc/<pid>/stat` fields after the command name: [state, ppid, pgrp, …]; `undefined` if gone. */
function statOf(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = text.lastIndexOf(")");
    return {
      comm: text.slice(text.indexOf("(") + 1, close),
      fields: text
        .slice(close + 2)
        .trim()
        .split(" "),
    };
  } catch {
    return undefined;
  }
}

/** The workerd processes among the descendants of `rootPid` (found by walking parent pids in /proc). */
export function workerdPids(rootPid) {
  if (!existsSync("/proc/self/stat")) return [];
  const children = new Map();
  const comms = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = statOf(name);
    if (!stat) continue;
    const ppid = Number(stat.fields[1]);
    comms.set(Number(name), stat.comm);
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(Number(name));
  }
  const found = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    const pid = queue.shift();
    for (const child of children.get(pid) ?? []) {
      if (comms.get(child) === "workerd") found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** Clock ticks per second for /proc CPU times (`getconf CLK_TCK`, else the usual 100). */
export function clockTicks() {
  try {
    const value = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
    return Number.isFinite(value) && value > 0 ? value : 100;
  } catch {
    return 100;
  }
}

/** utime + stime of the processes, in clock ticks (processes that are gone count 0). */
export function cpuTicks(pids) {
  let total = 0;
  for (const pid of pids) {
    const stat = statOf(pid);
    // Fields after the command: state(0) ppid(1) … utime(11) stime(12).
    if (stat) total += Number(stat.fields[11]) + Number(stat.fields[12]);
  }
  return total;
}

/** CPU seconds the processes use per 10 s of wall time, sampled over `ms`. */
export async function sampleCpu(pids, ms, ticksPerSecond) {
  const before = cpuTicks(pids);
  const started = performance.now();
  await sleep(ms);
  const elapsed = (performance.now() - started) / 1000;
  const used = (cpuTicks(pids) - before) / ticksPerSecond;
  return { cpuSecondsPer10s: (used * 10) / elapsed, sampledSeconds: elapsed };
}

/** How often wrangler dev rebuilt and reloaded the Worker (it watches the sources) so far. */
export function reloadsIn(logPath) {
  try {
    return readFileSync(logPath, "utf8").split("Reloading local server").length - 1;
  } catch {
    return 0;
  }
}

/** The last `lines` lines of a file (for a failure report). */
export function tail(path, lines = 40) {
  try {
    return readFileSync(path, "utf8").split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}
