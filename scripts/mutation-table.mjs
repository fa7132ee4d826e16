// The per-file score table of a mutation run (`npm run mutation`), as Markdown for the README:
// `node scripts/mutation-table.mjs [reports/mutation/mutation.json]`. Score = detected (killed + timed out)
// over covered-or-not valid mutants (killed + timed out + survived + no coverage); ignored mutants (the
// equivalent ones, each marked in the source with its reason) and mutants that break the module's loading
// are left out, as Stryker counts them.
import { readFileSync } from "node:fs";

const path = process.argv[2] ?? "reports/mutation/mutation.json";
const report = JSON.parse(readFileSync(path, "utf8"));
const count = (mutants, status) => mutants.filter((mutant) => mutant.status === status).length;
const rows = [];
const total = { detected: 0, valid: 0, survived: 0, noCoverage: 0, ignored: 0 };
for (const [file, { mutants }] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
  const detected = count(mutants, "Killed") + count(mutants, "Timeout");
  const survived = count(mutants, "Survived");
  const noCoverage = count(mutants, "NoCoverage");
  const ignored = count(mutants, "Ignored");
  const valid = detected + survived + noCoverage;
  total.detected += detected;
  total.valid += valid;
  total.survived += survived;
  total.noCoverage += noCoverage;
  total.ignored += ignored;
  const score = valid === 0 ? "n/a" : ((100 * detected) / valid).toFixed(1);
  rows.push(`| \`${file}\` | ${score} | ${detected} | ${survived} | ${noCoverage} | ${ignored} |`);
}
const overall = total.valid === 0 ? "n/a" : ((100 * total.detected) / total.valid).toFixed(1);
console.log("| file | score % | detected | survived | no coverage | ignored (equivalent) |");
console.log("| --- | --- | --- | --- | --- | --- |");
for (const row of rows) console.log(row);
console.log(
  `| **all** | **${overall}** | ${total.detected} | ${total.survived} | ${total.noCoverage} | ${total.ignored} |`,
);
