// `npm run build`: compiles src/ to dist/ (ESM `.js`, `.d.ts` and declaration maps, which lead editors to the shipped `src/`) with tsc,
// from a clean dist/. tsc rewrites the sources' relative `.ts` import specifiers to `.js` in the emitted
// JavaScript but leaves them in the declarations, where a consumer's TypeScript refuses them (TS5097);
// this script rewrites those too (same length, so the declaration maps stay exact), then refuses to
// finish if any emitted file still names a relative `.ts` module.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const dist = join(root, "dist");

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], {
  cwd: root,
  stdio: "inherit",
});

/** `from "./x.ts"`, `import("../y.ts")`: relative specifiers only; bare ones are left alone. */
const RELATIVE_TS = /(["'])(\.{1,2}\/[^"'\n]*?)\.ts\1/g;

function emitted(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return emitted(path);
    return /\.(js|d\.ts)$/.test(entry.name) ? [path] : [];
  });
}

let rewritten = 0;
const leftovers = [];
for (const path of emitted(dist)) {
  const text = readFileSync(path, "utf8");
  const next = path.endsWith(".d.ts") ? text.replace(RELATIVE_TS, "$1$2.js$1") : text;
  if (next !== text) {
    writeFileSync(path, next);
    rewritten++;
  }
  if (next.search(RELATIVE_TS) !== -1) leftovers.push(path);
}
if (leftovers.length > 0) {
  console.error(`build: relative .ts specifiers left in ${leftovers.join(", ")}`);
  process.exit(1);
}
console.log(`build: dist/ written (${rewritten} declaration files had their .ts specifiers rewritten)`);
