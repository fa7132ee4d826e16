/**
 * Runs the shared core cases (./cases.ts) outside vitest, in Deno or Bun (Node works too), one after the
 * other. Prints `ok - name` or `not ok - name: error` per case, then `<runtime>: N passed, M failed`, and
 * exits non-zero on any failure or when no case ran.
 *
 * From the repository root:
 *
 *     bun test/runtime/run.ts
 *     deno run --node-modules-dir=manual test/runtime/run.ts
 *
 * @module
 */
import { cases } from "./cases.ts";

// Only what this file uses, so it typechecks without Node, Deno or Bun types.
declare const Deno: { exit(code: number): never; version: { deno: string } } | undefined;
declare const Bun: { version: string } | undefined;
declare const process: { exit(code: number): never; versions: { node?: string } } | undefined;

function runtimeName(): string {
  if (typeof Deno !== "undefined") return "deno";
  if (typeof Bun !== "undefined") return "bun";
  // Deno and Bun define `process` too, so it is tested last.
  const node = typeof process === "undefined" ? undefined : process.versions.node;
  if (node !== undefined) return "node";
  return "unknown";
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const stackTop = error.stack
      ?.split("\n")
      .find((line) => /^\s+at /.test(line))
      ?.trim();
    return `${error.name}: ${error.message}${stackTop ? ` (${stackTop})` : ""}`;
  }
  return String(error);
}

function exit(code: number): never {
  if (typeof Deno !== "undefined") Deno.exit(code);
  if (typeof process !== "undefined") process.exit(code);
  throw new Error(`cannot exit with code ${code}: neither Deno nor process is available`);
}

const runtime = runtimeName();
let passed = 0;
let failed = 0;
for (const testCase of cases) {
  try {
    await testCase.run();
    passed++;
    console.log(`ok - ${testCase.name}`);
  } catch (error) {
    failed++;
    console.log(`not ok - ${testCase.name}: ${describe(error)}`);
  }
}
console.log(`${runtime}: ${passed} passed, ${failed} failed`);
exit(failed > 0 || passed === 0 ? 1 : 0);
