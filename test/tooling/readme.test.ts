/**
 * The README's main example must run as written: it is extracted, pointed at src/, and executed.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it, vi } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const scratch = join(root, "test", ".scratch");

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function exampleAfter(heading: string): string {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const start = readme.indexOf(heading);
  expect(start).toBeGreaterThan(-1);
  const match = /```ts\n([\s\S]*?)```/.exec(readme.slice(start));
  expect(match).not.toBeNull();
  return match![1]!
    .replaceAll('from "modelwire/testing"', `from "${join(root, "src/testing.ts")}"`)
    .replaceAll('from "modelwire"', `from "${join(root, "src/index.ts")}"`);
}

it("the FakeProvider example in the README runs and prints what its comments say", async () => {
  mkdirSync(scratch, { recursive: true });
  const file = join(scratch, "readme-example.ts");
  writeFileSync(file, `${exampleAfter("## Example")}\nexport {};\n`);
  const log = vi.spyOn(console, "log").mockImplementation(() => {});
  try {
    await import(file);
    expect(log.mock.calls).toEqual([["Sunny, 21 °C."], ["Sunny, 21 °C.", 2]]);
  } finally {
    log.mockRestore();
  }
});
