// `npm run loadtest`: a bounded load-and-fault run of the Worker gateway under `wrangler dev`, against a
// fake OpenAI-compatible upstream on 127.0.0.1, finished (or killed) within 80 s of wall-clock time.
//
//   a. 1 (8 streams one after another), 50, then 200 concurrent streams through /v1/chat/completions,
//      /v1/stream and /v1/messages (converted: the fake upstream speaks Chat Completions), and straight to
//      the fake upstream for the baseline: every stream's text checked, errors counted, TTFB / total p50 /
//      p99, what the gateway adds, and workerd's CPU-ms per stream (/proc utime + stime around each batch);
//   b. a pause / resume / abort storm on demo-workflow tasks whose model calls are held in flight: final
//      statuses, double-executed steps (from the upstream's call log), duplicate status events, repeated
//      assistant turns;
//   c. event streams opened on a paused task and abandoned: workerd's CPU with no client connected,
//      `?poll=abc`, and /health right after;
//   d. clients that leave before the first byte (/v1/complete, /v1/stream, /v1/chat/completions): each
//      upstream call must be cancelled, not run to completion;
//   e. virtual keys under concurrency (keys made with the admin API, `ADMIN_TOKENS` random per run): 200
//      concurrent requests on one key with `rpm: 100`, 50 keys with `rpm: 4` driven at once, and a `total`
//      budget under a burst (the fake model priced by the config's `prices`), then the same burst again.
//
// It prints a Markdown report (stdout; progress goes to stderr) and exits 1 when a stream's text is wrong,
// a task step ran twice, a stream ended cleanly without its terminal event, an upstream call outlived a
// client that left before the first byte, a key admitted more or fewer requests than its `rpm`, a request
// it refused reached the upstream, its spend overshot its budget by more than one request's cost, or a
// stream batch or key burst was skipped or cut short for lack of time; 2 when the gateway could not be started or the 80 s deadline was hit (the children are
// killed and the partial report printed). Other figures (errors, CPU, statuses) are reported, not judged.
// wrangler dev rebuilds and reloads the Worker when src/ changes, which cuts every open stream: the report
// says when that happened. `--snapshot` runs a copy of src/ taken at start instead, so edits made during
// the run do not reach it; `--rev <git revision>` runs that revision's src/ (to compare before and after a
// change: `npm run loadtest -- --rev HEAD`).
// Only loopback is used. Only what this script started is stopped: the fake upstream (a worker thread) and
// the `wrangler dev` process group (spawned detached). State, logs and wrangler's files live in a temp dir,
// removed at the end (`--keep` keeps it).
//
//   node scripts/loadtest.mjs [--seed 42] [--tasks 30] [--streams 1,50,200] [--chunk-delay 2]
//                             [--first-byte-delay 0] [--snapshot | --rev <git revision>] [--keep]
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, arch as osArch, release as osRelease, type as osType, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { abandonScenario } from "./loadtest/abandon.mjs";
import { replyFor, startFakeUpstream } from "./loadtest/fake-upstream.mjs";
import { request } from "./loadtest/http.mjs";
import { KEY_PRICES, keysScenario } from "./loadtest/keys.mjs";
import { leaveScenario } from "./loadtest/leave.mjs";
import { checksOf, renderReport } from "./loadtest/report.mjs";
import { streamsScenario } from "./loadtest/streams.mjs";
import { tasksScenario } from "./loadtest/tasks.mjs";
import { startWorkerdDirect } from "./loadtest/workerd-direct.mjs";
import {
  bindingsOf,
  killWranglerDevNow,
  reloadsIn,
  startWranglerDev,
  stopWranglerDev,
  tail,
} from "./loadtest/wrangler-dev.mjs";

/**
 * The whole run, from process start, including wrangler's start-up and shutdown. 60 s until scenario e
 * (virtual keys) came; raised by its reserve (RESERVE_KEYS_MS, 9 s) so that scenarios a–d keep the shares
 * they had. Taken out of 60 s instead, scenario a's share would end 18 s from start, and a ended at 12.3 s
 * and 16.8 s in two runs on 2 shared cores: too close, a busier machine would cut its last batch.
 * Raised again from 69 s by 11 s for what issue 22 added to scenario a — concurrency 1 (four batches of
 * SERIAL_STREAMS streams one after another, ~1.5 s each) and `/v1/messages` at every concurrency (~1 s at
 * 50, ~2.5–4 s at 200) — so that a keeps the ~10 s of slack it had: with 69 s its last batch (200 ×
 * `/v1/messages`) was cut at 27 s in the first run.
 */
const LIMIT_MS = 80_000;
/** Time kept back at the end for stopping wrangler, removing the temp dir and printing. */
const SHUTDOWN_MS = 3500;
/** Time kept back for the scenarios after the current one, so each gets its turn. */
const RESERVE_TASKS_MS = 10_000;
/** Scenario d: 2.2 s under wrangler dev, then a bundle, a workerd start and 2.2 s more. */
const RESERVE_LEAVE_MS = 7_000;
const RESERVE_ABANDON_MS = 12_500;
/** Scenario e: 51 key creations and 800 short non-streaming calls, 6–7 s under wrangler dev on 2 shared cores. */
const RESERVE_KEYS_MS = 9_000;

const root = fileURLToPath(new URL("..", import.meta.url));
const config = join(root, "scripts/loadtest/wrangler.toml");

const { values: args } = parseArgs({
  options: {
    seed: { type: "string", default: "42" },
    tasks: { type: "string", default: "30" },
    streams: { type: "string", default: "1,50,200" },
    "chunk-delay": { type: "string", default: "2" },
    "first-byte-delay": { type: "string", default: "0" },
    snapshot: { type: "boolean", default: false },
    rev: { type: "string" },
    keep: { type: "boolean", default: false },
  },
});
const seed = Number(args.seed) >>> 0;
const concurrencies = args.streams
  .split(",")
  .map(Number)
  .filter((n) => Number.isInteger(n) && n > 0);

const progress = (message) =>
  console.error(`loadtest ${(performance.now() / 1000).toFixed(1).padStart(5)} s: ${message}`);

/** Milliseconds left before `end` (a `performance.now()` time), never negative. */
const budgetUntil = (end) => ({ left: () => Math.max(0, end - performance.now()) });
const END = LIMIT_MS - SHUTDOWN_MS;

const cpuList = cpus();
const wranglerVersion = JSON.parse(
  readFileSync(join(root, "node_modules/wrangler/package.json"), "utf8"),
).version;
const results = {
  machine: [
    `node ${process.version}`,
    `${osType()} ${osRelease()} ${osArch()}`,
    `${cpuList.length} × ${cpuList[0]?.model?.trim() ?? "unknown CPU"}`,
    `load average ${loadavg()
      .map((value) => value.toFixed(2))
      .join(" ")} at start`,
    `wrangler ${wranglerVersion}`,
    `seed ${seed}`,
  ].join(" · "),
  streams: undefined,
  tasks: undefined,
  abandon: undefined,
  keys: undefined,
  checks: [],
  notes: [],
  seconds: undefined,
};

const tmp = mkdtempSync(join(tmpdir(), "modelwire-loadtest-"));
// wrangler keeps its bundles in .wrangler/ beside the config (git-ignored); removed after if it was not there.
const wranglerDir = join(root, "scripts/loadtest/.wrangler");
const wranglerDirExisted = existsSync(wranglerDir);
const snapshotDir = join(wranglerDir, `snapshot-${process.pid}`);
const token = `loadtest-${randomBytes(12).toString("hex")}`;
const adminToken = `loadtest-admin-${randomBytes(12).toString("hex")}`;
let upstream;
let gateway;
let phase = "start-up";
let finishing = false;

/** Removes what this run created on disk. */
function removeFiles() {
  if (args.keep) {
    console.error(`loadtest: kept ${tmp}`);
  } else {
    rmSync(tmp, { recursive: true, force: true });
  }
  rmSync(snapshotDir, { recursive: true, force: true });
  if (!wranglerDirExisted) rmSync(wranglerDir, { recursive: true, force: true });
}

/**
 * Stops the children (by the pids we started), removes the temp files, prints the report (partial or
 * not) and exits: with `code` when it is not 0, else 1 when a check failed. Runs once.
 */
async function finish(code, graceMs) {
  if (finishing) return;
  finishing = true;
  clearTimeout(deadline);
  await stopWranglerDev(gateway, graceMs);
  await upstream?.close();
  if (gateway?.logPath) {
    const reloads = reloadsIn(gateway.logPath);
    if (reloads > 0)
      results.notes.push(
        `**wrangler dev reloaded the Worker ${reloads}× during the run (src/ changed): open streams and tasks were cut, the figures are unreliable; \`--snapshot\` avoids this**`,
      );
    if (gateway.exited && !gateway.stopping)
      results.notes.push(`**wrangler dev exited during the run (${JSON.stringify(gateway.exited)})**`);
    if (code !== 0) console.error(`--- wrangler dev log (tail) ---\n${tail(gateway.logPath)}\n---`);
  }
  if (args.rev) results.notes.push(`ran src/ of git revision \`${args.rev}\` (\`--rev\`)`);
  else if (args.snapshot) results.notes.push("ran a snapshot of src/ taken at start (`--snapshot`)");
  removeFiles();
  results.seconds = performance.now() / 1000;
  results.limitSeconds = LIMIT_MS / 1000;
  results.checks = checksOf(results);
  console.log(renderReport(results));
  const failed = results.checks.some((check) => !check.ok);
  process.exit(code !== 0 ? code : failed ? 1 : 0);
}

// The global deadline: kill the children at once, print what there is, exit 2 — never a hang.
const deadline = setTimeout(
  () => {
    console.error(
      `loadtest: the ${LIMIT_MS / 1000} s deadline was hit during ${phase}; killing the children`,
    );
    results.notes.push(
      `**deadline of ${LIMIT_MS / 1000} s hit during ${phase}**; the figures above are partial`,
    );
    finish(2, 0);
  },
  Math.max(0, LIMIT_MS - 2500 - performance.now()),
);

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    killWranglerDevNow(gateway);
    removeFiles();
    process.exit(130);
  });
}
// Last resort on any exit: the wrangler group must not outlive us.
process.once("exit", () => killWranglerDevNow(gateway));

/** The run: checks, start-up, the three scenarios. Throws on a failure that stops it. */
async function main() {
  // The load test's wrangler config must keep the root one's Durable Objects, migrations and compatibility.
  const ours = bindingsOf(readFileSync(config, "utf8"));
  const theirs = bindingsOf(readFileSync(join(root, "wrangler.toml"), "utf8"));
  if (ours !== theirs) {
    throw new Error(
      `scripts/loadtest/wrangler.toml no longer matches wrangler.toml (Durable Objects, migrations, compatibility):\n--- wrangler.toml\n${theirs}\n--- scripts/loadtest/wrangler.toml\n${ours}`,
    );
  }

  // --snapshot / --rev: a copy of src/ beside a copy of the config, inside the repository (under the
  // git-ignored .wrangler/) so that the copy still resolves its packages from node_modules/.
  let devConfig = config;
  if (args.snapshot || args.rev) {
    mkdirSync(snapshotDir, { recursive: true });
    if (args.rev) {
      const tar = execFileSync("git", ["archive", "--format=tar", args.rev, "src"], {
        cwd: root,
        maxBuffer: 256 * 1024 * 1024,
      });
      execFileSync("tar", ["-x", "-C", snapshotDir], { input: tar });
    } else {
      cpSync(join(root, "src"), join(snapshotDir, "src"), { recursive: true });
    }
    const text = readFileSync(config, "utf8").replace(/^main = .*$/m, 'main = "src/worker/index.ts"');
    devConfig = join(snapshotDir, "wrangler.toml");
    writeFileSync(devConfig, text);
  }

  upstream = await startFakeUpstream({
    chunkDelayMs: Number(args["chunk-delay"]),
    firstByteDelayMs: Number(args["first-byte-delay"]),
  });
  progress(`fake upstream on ${upstream.baseURL}`);
  const route = { protocol: "openai-chat", endpoint: "generic", model: "fake", baseURL: upstream.baseURL };
  try {
    gateway = await startWranglerDev({
      root,
      config: devConfig,
      tmp,
      vars: {
        GATEWAY_TOKENS: token,
        ADMIN_TOKENS: adminToken,
        // `prices` for the fake model: scenario e's budget needs a priced model.
        MODELWIRE_CONFIG: JSON.stringify({
          routes: { demo: route, chat: route },
          prices: { fake: KEY_PRICES },
        }),
      },
      waitMs: Math.min(
        25_000,
        END - RESERVE_TASKS_MS - RESERVE_ABANDON_MS - RESERVE_LEAVE_MS - RESERVE_KEYS_MS - performance.now(),
      ),
    });
  } catch (error) {
    gateway = error.handle;
    throw error;
  }
  progress(`wrangler dev answers on ${gateway.url} (pid ${gateway.pid})`);
  const ctx = { upstream, gateway, token, adminToken };

  // Warm-up and the non-streaming path: one plain completion through the gateway, its text checked.
  phase = "warm-up";
  const warm = await request(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: { model: "chat", messages: [{ role: "user", content: "warm-up" }] },
    timeoutMs: 8000,
  });
  const warmText = warm.json?.choices?.[0]?.message?.content;
  results.notes.push(
    warm.status === 200 && warmText === replyFor("warm-up")
      ? "non-streaming `/v1/chat/completions` (warm-up call): text matches"
      : `**non-streaming \`/v1/chat/completions\` (warm-up call): HTTP ${warm.status || warm.error}, text ${warmText === replyFor("warm-up") ? "matches" : "differs"}**`,
  );

  phase = "scenario a (streams)";
  progress(`${phase}: ${concurrencies.join(", ")} concurrent streams`);
  results.streams = [];
  await streamsScenario(ctx, {
    concurrencies,
    batches: results.streams,
    budget: budgetUntil(END - RESERVE_TASKS_MS - RESERVE_ABANDON_MS - RESERVE_LEAVE_MS - RESERVE_KEYS_MS),
    onBatch: (batch) =>
      progress(
        `  ${batch.streams} × ${batch.label}: ${batch.completed} completed, ${batch.mismatches} mismatches, ${Math.round(batch.wallMs)} ms`,
      ),
  });

  phase = "scenario d (clients that leave before the first byte)";
  progress(phase);
  results.leave = { "wrangler dev": await leaveScenario(ctx) };
  // workerd itself, without wrangler dev's local proxy (which holds the client's connection).
  const direct = await startWorkerdDirect({
    root,
    config: devConfig,
    tmp,
    vars: { GATEWAY_TOKENS: token, MODELWIRE_CONFIG: JSON.stringify({ routes: { chat: route } }) },
    compatibilityDate: /^compatibility_date = "([^"]+)"/m.exec(readFileSync(config, "utf8"))[1],
    compatibilityFlags: JSON.parse(/^compatibility_flags = (\[.*\])/m.exec(readFileSync(config, "utf8"))[1]),
  });
  try {
    results.leave.workerd = await leaveScenario(ctx, { url: direct.url, tag: " direct" });
  } finally {
    direct.stop();
  }

  phase = "scenario b (task storm)";
  progress(phase);
  const idleTaskId = "lt-idle";
  results.tasks = await tasksScenario(ctx, {
    count: Number(args.tasks),
    stormMs: 4000,
    seed,
    idleTaskId,
    budget: budgetUntil(END - RESERVE_ABANDON_MS - RESERVE_KEYS_MS),
  });
  progress(
    `  final: ${JSON.stringify(results.tasks.byStatus)}, double-executed steps: ${results.tasks.doubleExecuted}`,
  );

  phase = "scenario c (abandoned event streams)";
  progress(phase);
  results.abandon = await abandonScenario(ctx, {
    taskId: idleTaskId,
    streams: 20,
    sampleMs: 5000,
    budget: budgetUntil(END - RESERVE_KEYS_MS),
  });
  if (results.abandon.workerdPids.length === 0)
    results.notes.push("no workerd process found under wrangler dev: CPU not sampled");

  phase = "scenario e (virtual keys under concurrency)";
  progress(phase);
  try {
    results.keys = await keysScenario(ctx, { budget: budgetUntil(END) });
  } catch (error) {
    // A gateway without virtual keys (`--rev` of an older src/, say): the scenario did not run, a failed check.
    results.notes.push(`**${phase} failed: ${String(error.message).split("\n")[0]}**`);
    phase = "shutdown";
    return;
  }
  progress(
    `  one key: ${results.keys.oneKey.admitted} admitted of ${results.keys.oneKey.sent}; 50 keys: ${results.keys.manyKeys.exactKeys ?? "skipped"} exact; budget: ${results.keys.budget.admitted ?? "skipped"} admitted, overshoot $${results.keys.budget.overshootUsd}`,
  );
  phase = "shutdown";
}

await main().then(
  () => finish(0, 2500),
  (error) => {
    console.error(`loadtest: ${phase} failed: ${error.stack ?? error.message}`);
    results.notes.push(`**${phase} failed: ${String(error.message).split("\n")[0]}**`);
    return finish(2, 1500);
  },
);
