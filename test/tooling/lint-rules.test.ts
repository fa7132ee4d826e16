/**
 * The lint step is what keeps Node-only and Cloudflare-only APIs out of the library. This proves the rule
 * bites: it lints probe files with the project's real biome.json, placed where they would sit in src/.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const biome = join(root, "node_modules", ".bin", "biome");
const sandbox = mkdtempSync(join(tmpdir(), "modelwire-lint-"));
const config = JSON.parse(readFileSync(join(root, "biome.json"), "utf8")) as Record<string, unknown>;
delete config.$schema;
writeFileSync(join(sandbox, "biome.json"), JSON.stringify(config));

afterAll(() => rmSync(sandbox, { recursive: true, force: true }));

function lint(relativePath: string, source: string): Promise<{ code: number; output: string }> {
  const file = join(sandbox, relativePath);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, source);
  return new Promise((resolve) => {
    execFile(biome, ["lint", relativePath], { cwd: sandbox }, (error, stdout, stderr) => {
      rmSync(file);
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr });
    });
  });
}

describe("lint rules for src/", () => {
  it("fails on a node: import under src/", async () => {
    const result = await lint(
      "src/core/probe.ts",
      'import { readFile } from "node:fs";\nexport const probe = readFile;\n',
    );
    expect(result.code).not.toBe(0);
    expect(result.output).toContain("noNodejsModules");
  });

  it("fails on Buffer, process and require under src/", async () => {
    for (const source of [
      'export const probe = Buffer.from("x");\n',
      "export const probe = process.env.KEY;\n",
      'export const probe = require("x");\n',
    ]) {
      const result = await lint("src/wire/probe.ts", source);
      expect([source, result.code]).not.toEqual([source, 0]);
      expect(result.output).toContain("noRestrictedGlobals");
    }
  });

  it("fails on hono or cloudflare: imports outside src/worker/, and allows them inside", async () => {
    const outside = await lint(
      "src/core/probe.ts",
      'import { Hono } from "hono";\nexport const probe = Hono;\n',
    );
    expect(outside.code).not.toBe(0);
    expect(outside.output).toContain("noRestrictedImports");
    const inside = await lint(
      "src/worker/probe.ts",
      'import { Hono } from "hono";\nexport const probe = Hono;\n',
    );
    expect(inside.code).toBe(0);
  });

  it("still forbids Node modules inside src/worker/ (the Worker runs without nodejs_compat)", async () => {
    const result = await lint(
      "src/worker/probe.ts",
      'import { createHash } from "node:crypto";\nexport const probe = createHash;\n',
    );
    expect(result.code).not.toBe(0);
  });

  it("fails on console output in the library, and allows it in the Worker (an application's logs)", async () => {
    for (const method of ["log", "info", "warn", "error", "debug"]) {
      const result = await lint(
        "src/providers/probe.ts",
        `export const probe = () => console.${method}("x");\n`,
      );
      expect([method, result.code]).not.toEqual([method, 0]);
      expect(result.output).toContain("noConsole");
    }
    // Handing console over as a default logger is printing too.
    const handed = await lint(
      "src/substrate/probe.ts",
      "export const probe = (logger?: object) => logger ?? console;\n",
    );
    expect(handed.code).not.toBe(0);
    expect(handed.output).toContain("noRestrictedGlobals");
    const worker = await lint("src/worker/probe.ts", 'export const probe = () => console.error("x");\n');
    expect(worker.code).toBe(0);
  });

  it("accepts clean library code (the probe set-up itself is sound)", async () => {
    const result = await lint("src/core/probe.ts", "export const probe = new TextEncoder().encode('x');\n");
    expect(result.code).toBe(0);
  });
});
