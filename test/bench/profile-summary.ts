/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): self time per function and per source file,
 * largest first, as markdown. For finding where a benchmark row spends its time:
 *
 *   node --expose-gc --cpu-prof --cpu-prof-dir=/tmp/prof test/bench/run.ts --scenarios=a --only=modelwire --reps=20
 *   node test/bench/profile-summary.ts /tmp/prof/*.cpuprofile [--top=25]
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { markdownTable } from "./stats.ts";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "25" } },
});
const top = Number(values.top);

for (const file of positionals) {
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfTime = new Map<number, number>();
  profile.samples.forEach((id, index) => {
    selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  let total = 0;
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const [id, micros] of selfTime) {
    const frame = byId.get(id)!.callFrame;
    total += micros;
    const where = shortUrl(frame.url);
    const name = `${frame.functionName || "(anonymous)"} ${where ? `${where}:${frame.lineNumber + 1}` : ""}`;
    byFunction.set(name.trim(), (byFunction.get(name.trim()) ?? 0) + micros);
    const fileKey = where || frame.functionName;
    byFile.set(fileKey, (byFile.get(fileKey) ?? 0) + micros);
  }
  const rows = (entries: Map<string, number>): string[][] =>
    [...entries]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, micros]) => [name, (micros / 1000).toFixed(0), ((100 * micros) / total).toFixed(1)]);
  console.log(`## ${file}\n\nTotal sampled: ${(total / 1e6).toFixed(2)} s\n`);
  console.log(markdownTable([["Function (self time)", "ms", "%"], ...rows(byFunction)], [1, 2]));
  console.log();
  console.log(markdownTable([["File (self time)", "ms", "%"], ...rows(byFile)], [1, 2]));
  console.log();
}

function shortUrl(url: string): string {
  if (!url) return "";
  const path = url.replace(/^file:\/\//, "");
  const modules = path.lastIndexOf("node_modules/");
  if (modules >= 0) return path.slice(modules + "node_modules/".length);
  const source = path.search(/\/(src|test)\//);
  return source >= 0 ? path.slice(source + 1) : path;
}
