// `npm test`: every suite, each run even when an earlier one failed, then one summary that names what
// failed (and the test counts each suite printed). Exits non-zero when any suite failed.
//
//   lint      biome + the four TypeScript projects
//   vitest    the node and workerd projects, with the check that every test file was collected
//   deno      the shared runtime cases in Deno
//   bun       the shared runtime cases in Bun
//   package   the packed tarball installed and used by node, Deno, Bun, TypeScript and wrangler
import { spawn } from "node:child_process";

const SUITES = [
  { name: "lint", script: "lint" },
  { name: "vitest", script: "test:vitest" },
  { name: "deno", script: "test:deno" },
  { name: "bun", script: "test:bun" },
  { name: "package", script: "test:package" },
];

/** Lines worth repeating in the summary: the per-project and per-runtime counts the suites print. */
const COUNT_LINE = /^(node|workerd|deno|bun|package): \d+ passed, \d+ failed/;

function runSuite(suite) {
  return new Promise((resolve) => {
    const started = Date.now();
    const counts = [];
    let pending = "";
    const child = spawn("npm", ["run", "--silent", suite.script], { stdio: ["ignore", "pipe", "inherit"] });
    child.stdout.on("data", (chunk) => {
      process.stdout.write(chunk);
      pending += chunk.toString("utf8");
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        // biome-ignore lint/suspicious/noControlCharactersInRegex: strips ANSI colour codes
        const plain = line.replace(/\x1b\[[0-9;]*m/g, "").trim();
        if (COUNT_LINE.test(plain)) counts.push(plain);
      }
    });
    child.on("close", (code, signal) => {
      resolve({
        ...suite,
        ok: code === 0,
        code: code ?? signal,
        seconds: (Date.now() - started) / 1000,
        counts,
      });
    });
  });
}

const results = [];
for (const suite of SUITES) {
  console.log(`\n=== npm test: ${suite.name} (npm run ${suite.script}) ===\n`);
  results.push(await runSuite(suite));
}

console.log("\n=== npm test: summary ===");
for (const result of results) {
  const status = result.ok ? "ok    " : `FAILED (exit ${result.code})`;
  const detail = result.counts.length > 0 ? ` — ${result.counts.join("; ")}` : "";
  console.log(`${status} ${result.name} in ${result.seconds.toFixed(0)} s${detail}`);
}
const failed = results.filter((result) => !result.ok).map((result) => result.name);
if (failed.length > 0) {
  console.log(`npm test: FAILED: ${failed.join(", ")}`);
  process.exit(1);
}
console.log("npm test: every suite passed");
