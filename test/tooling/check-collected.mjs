// Fails the run when a vitest project collected no tests, or when a test file under the folders a run
// covers was not collected: tests the runner does not collect do not exist (seed 004's provider_*.py
// lesson). Reads the JSON report that a vitest run wrote.
//
//   node test/tooling/check-collected.mjs <report.json> <project=folder-prefix>... [--except <folder-prefix>]...
//
// Each `project=prefix` names a project and the test files it owns (the JSON reporter does not name the
// project; the folder does). Every `*.test.ts` under test/ belongs to exactly one of them unless excepted.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const [reportPath, ...rest] = process.argv.slice(2);
const projects = [];
const excepted = [];
for (let i = 0; i < rest.length; i++) {
  if (rest[i] === "--except") excepted.push(rest[++i]);
  else {
    const [name, prefix] = rest[i].split("=");
    projects.push({ name, prefix: prefix ?? "" });
  }
}
if (!reportPath || projects.length === 0) {
  console.error("usage: check-collected.mjs <report.json> <project=folder-prefix>... [--except <prefix>]");
  process.exit(2);
}
const report = JSON.parse(readFileSync(join(root, reportPath), "utf8"));

/** The project owning a file: the one with the longest matching prefix (`test/` matches everything). */
function projectOf(file) {
  let best;
  for (const project of projects) {
    if (file.startsWith(project.prefix) && (!best || project.prefix.length > best.prefix.length))
      best = project;
  }
  return best?.name;
}

const perProject = new Map();
const collectedFiles = new Set();
for (const file of report.testResults) {
  const path = relative(root, file.name);
  collectedFiles.add(path);
  const project = projectOf(path) ?? "unknown";
  const counts = perProject.get(project) ?? { passed: 0, failed: 0, skipped: 0 };
  for (const test of file.assertionResults) {
    if (test.status === "passed") counts.passed++;
    else if (test.status === "failed") counts.failed++;
    else counts.skipped++;
  }
  perProject.set(project, counts);
}

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : testFiles(path);
    return entry.name.endsWith(".test.ts") ? [relative(root, path)] : [];
  });
}

const problems = [];
for (const { name } of projects) {
  const counts = perProject.get(name);
  if (!counts || counts.passed === 0) problems.push(`vitest project "${name}" ran no test`);
  else console.log(`${name}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
}
for (const file of testFiles(join(root, "test"))) {
  if (excepted.some((prefix) => file.startsWith(prefix))) continue;
  if (!projectOf(file)) continue;
  if (!collectedFiles.has(file)) problems.push(`${file} was not collected by vitest`);
}
if (problems.length > 0) {
  for (const problem of problems) console.error(`check-collected: ${problem}`);
  process.exit(1);
}
