// Fails the run when a vitest project collected no tests, or when any test file under test/ was not
// collected: tests the runner does not collect do not exist (seed 004's provider_*.py lesson).
// Reads the JSON report that `npm run test:vitest` writes.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const report = JSON.parse(readFileSync(join(root, "node_modules/.cache/modelwire/vitest.json"), "utf8"));

const perProject = new Map();
const collectedFiles = new Set();
for (const file of report.testResults) {
  collectedFiles.add(relative(root, file.name));
  for (const test of file.assertionResults) {
    // The JSON reporter does not name the project; the workerd project is exactly test/worker/.
    const project = relative(root, file.name).startsWith("test/worker/") ? "workerd" : "node";
    const counts = perProject.get(project) ?? { passed: 0, failed: 0, skipped: 0 };
    if (test.status === "passed") counts.passed++;
    else if (test.status === "failed") counts.failed++;
    else counts.skipped++;
    perProject.set(project, counts);
  }
}

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : testFiles(path);
    return entry.name.endsWith(".test.ts") ? [relative(root, path)] : [];
  });
}

const problems = [];
for (const project of ["node", "workerd"]) {
  const counts = perProject.get(project);
  if (!counts || counts.passed === 0) problems.push(`vitest project "${project}" ran no test`);
  else console.log(`${project}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
}
for (const file of testFiles(join(root, "test"))) {
  if (!collectedFiles.has(file)) problems.push(`${file} was not collected by vitest`);
}
if (problems.length > 0) {
  for (const problem of problems) console.error(`check-collected: ${problem}`);
  process.exit(1);
}
