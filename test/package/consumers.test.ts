/**
 * The package as its users get it: `npm pack` builds and packs this checkout, and throwaway projects
 * under a temporary folder install the tarball (dependencies from npm's cache, falling back to the
 * registry) and use it the way the README says:
 *
 * (a) plain `node` (Node 22 from node_modules, no flag, no loader) imports every library entry
 *     (`modelwire`, `/testing`, `/wire`, `/protocols`; `/worker` resolved) and runs the README's
 *     FakeProvider example;
 * (b) Deno runs the same example through `npm:` specifiers resolved from node_modules;
 * (c) Bun runs it;
 * (d) a strict TypeScript consumer (`module: NodeNext`, `strict`, `exactOptionalPropertyTypes`,
 *     `skipLibCheck: false`) compiles every README snippet against the published declarations;
 * (e) `wrangler deploy --dry-run` bundles a minimal Worker that imports the library (without Hono
 *     installed: the library needs none) and the gateway Worker from `modelwire/worker`, with no
 *     `nodejs_compat`, and neither bundle imports a `node:` module.
 * (f) `deno publish --dry-run` accepts the JSR package (no slow types).
 *
 * Each check is its own test, so one failing runtime never hides another.
 *
 * @module
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { transformSync } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const bin = (name: string) => join(root, "node_modules", ".bin", name);
const packageJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  version: string;
  devDependencies: Record<string, string>;
};
const readme = readFileSync(join(root, "README.md"), "utf8");
const wranglerToml = readFileSync(join(root, "wrangler.toml"), "utf8");
const compatibilityDate = /^compatibility_date = "([^"]+)"/m.exec(wranglerToml)?.[1];

interface Run {
  code: number;
  output: string;
}

/** Runs a command; never throws: the exit code and everything it printed come back for the assertion. */
function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {
        cwd,
        env: {
          ...process.env,
          // npm scripts put Node 22 first on PATH; keep it there for the tools these commands start.
          PATH: `${join(root, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
          WRANGLER_SEND_METRICS: "false",
          NO_COLOR: "1",
          ...env,
        },
        maxBuffer: 64 * 1024 * 1024,
        timeout: 240_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

function expectOk(result: Run, what: string): void {
  expect(result.code, `${what} failed:\n${result.output.slice(-6000)}`).toBe(0);
}

/** The ```ts blocks of the README, in order, with the heading each sits under. */
function readmeSnippets(): Array<{ heading: string; code: string }> {
  const out: Array<{ heading: string; code: string }> = [];
  let heading = "";
  const lines = readme.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith("#")) heading = line.replace(/^#+\s*/, "");
    if (line !== "```ts") continue;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== "```"; i++) body.push(lines[i]!);
    out.push({ heading, code: body.join("\n") });
  }
  return out;
}

/** `declare const name: …;` lines of readme-preamble.ts (a declaration spans one line, or up to `};`). */
function preambleDeclarations(): Array<{ name: string; line: string }> {
  const text = readFileSync(join(root, "test/package/readme-preamble.ts"), "utf8");
  const out: Array<{ name: string; line: string }> = [];
  for (const match of text.matchAll(
    /^declare (?:const|function) (\w+)[^\n]*(?:\n(?!declare|export)[^\n]*)*/gm,
  )) {
    out.push({ name: match[1]!, line: match[0].trimEnd() });
  }
  return out;
}

function declares(code: string, name: string): boolean {
  return (
    new RegExp(`\\b(?:const|let|var|function|class)\\s+${name}\\b`).test(code) ||
    new RegExp(`\\b(?:const|let|var)\\s*\\{[^}]*\\b${name}\\b[^}]*\\}`).test(code) ||
    new RegExp(`import\\s*(?:type\\s*)?\\{[^}]*\\b${name}\\b[^}]*\\}`).test(code)
  );
}

function usesName(code: string, name: string): boolean {
  return new RegExp(`(?<![.\\w])${name}\\b`).test(code);
}

const EXAMPLE_HEADING = "Example: a tool-using turn, tested with `FakeProvider`";
const ENTRY_CHECK = `
import * as library from "modelwire";
import * as testing from "modelwire/testing";
import * as wire from "modelwire/wire";
import * as protocols from "modelwire/protocols";
import * as mcp from "modelwire/mcp";
import * as compaction from "modelwire/compaction";
import * as evals from "modelwire/eval";
const expected = ${JSON.stringify(packageJson.version)};
if (library.VERSION !== expected) throw new Error("VERSION " + library.VERSION + ", expected " + expected);
for (const name of ["anthropic", "openaiChat", "openaiResponses", "bedrock", "fallback", "retry", "createProvider", "runAgent", "collectStream", "ProviderError"]) {
  if (typeof library[name] !== "function") throw new Error("modelwire has no function " + name);
}
if (typeof testing.FakeProvider !== "function") throw new Error("modelwire/testing has no FakeProvider");
for (const name of ["readSse", "readSseBatches", "readAwsEventStream", "AwsEventStreamDecoder", "crc32", "WireError"]) {
  if (typeof wire[name] !== "function") throw new Error("modelwire/wire has no function " + name);
}
for (const name of ["httpProvider", "nativeProvenance", "replaysNative", "isContextOverflow", "resolveToolChoice", "deliverBatches"]) {
  if (typeof protocols[name] !== "function") throw new Error("modelwire/protocols has no function " + name);
}
for (const name of ["anthropicMessagesProtocol", "openAIChatProtocol", "openAIResponsesProtocol", "bedrockConverseProtocol", "bedrockInvokeProtocol"]) {
  if (typeof protocols[name]?.buildRequest !== "function") throw new Error("modelwire/protocols has no protocol " + name);
}
for (const name of ["mcpClient", "McpError", "mcpToolContent", "toolOutput"]) {
  if (typeof mcp[name] !== "function") throw new Error("modelwire/mcp has no function " + name);
}
if (typeof compaction.compaction !== "function") throw new Error("modelwire/compaction has no function compaction");
for (const name of ["runEval", "evalMarkdown", "wilsonInterval", "signTest"]) {
  if (typeof evals[name] !== "function") throw new Error("modelwire/eval has no function " + name);
}
for (const name of ["readSse", "httpProvider", "anthropicMessagesProtocol", "mcpClient", "compaction", "runEval"]) {
  if (name in library) throw new Error("modelwire (the root) still exports " + name);
}
for (const [entry, file] of [["modelwire/wire", "wire/index.js"], ["modelwire/protocols", "protocols/index.js"], ["modelwire/mcp", "mcp/index.js"], ["modelwire/compaction", "compaction/index.js"], ["modelwire/eval", "eval/index.js"], ["modelwire/worker", "worker/app.js"]]) {
  const resolved = import.meta.resolve(entry);
  if (!resolved.endsWith("/node_modules/modelwire/dist/" + file)) throw new Error(entry + " resolves to " + resolved);
}
console.log("entries ok: " + Object.keys(library).length + " names; wire " + Object.keys(wire).length + ", protocols " + Object.keys(protocols).length);
`;

let work: string;
let tarball: string;
let library: string;
let gateway: string;
let example: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "modelwire-consumers-"));
  // `npm pack` runs `prepack`, which builds dist/ from this checkout.
  const pack = await run("npm", ["pack", "--pack-destination", work, "--silent"], root);
  expectOk(pack, "npm pack");
  tarball = join(work, readdirSync(work).find((name) => name.endsWith(".tgz"))!);

  // The library consumer: modelwire alone (Hono is an optional peer that library users never need).
  library = join(work, "library");
  mkdirSync(library);
  writeFileSync(
    join(library, "package.json"),
    JSON.stringify({
      name: "library-consumer",
      private: true,
      type: "module",
      dependencies: { modelwire: `file:${tarball}` },
    }),
  );
  // The gateway consumer: modelwire/worker with Hono and the Workers types, as its README section says.
  gateway = join(work, "gateway");
  mkdirSync(gateway);
  const dev = packageJson.devDependencies;
  writeFileSync(
    join(gateway, "package.json"),
    JSON.stringify({
      name: "gateway-consumer",
      private: true,
      type: "module",
      dependencies: {
        modelwire: `file:${tarball}`,
        hono: dev.hono,
        "@cloudflare/workers-types": dev["@cloudflare/workers-types"],
      },
    }),
  );
  const installArgs = ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"];
  const [libraryInstall, gatewayInstall] = await Promise.all([
    run("npm", installArgs, library),
    run("npm", installArgs, gateway),
  ]);
  expectOk(libraryInstall, "npm install (library consumer)");
  expectOk(gatewayInstall, "npm install (gateway consumer)");

  const snippet = readmeSnippets().find((s) => s.heading === EXAMPLE_HEADING);
  expect(snippet, "the README's FakeProvider example").toBeDefined();
  // Plain JavaScript, so no runtime's TypeScript support is what is being tested.
  example = transformSync(snippet!.code, { loader: "ts", format: "esm" }).code;
  writeFileSync(join(library, "entries.mjs"), ENTRY_CHECK);
  writeFileSync(join(library, "example.mjs"), example);
  writeFileSync(
    join(library, "example-npm.mjs"),
    example
      .replaceAll('from "modelwire"', 'from "npm:modelwire"')
      .replaceAll('from "modelwire/', 'from "npm:modelwire/'),
  );
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const EXAMPLE_OUTPUT = "Sunny, 21 °C.\nSunny, 21 °C. 2\n";

describe("the packed package", () => {
  it("holds only what a user needs", async () => {
    const listing = await run("tar", ["-tzf", tarball], work);
    expectOk(listing, "tar -tzf");
    const files = listing.output
      .trim()
      .split("\n")
      .map((path) => path.replace(/^package\//, ""));
    const tops = new Set(files.map((path) => path.split("/")[0]));
    expect([...tops].sort()).toEqual(["LICENSE", "README.md", "bin", "dist", "package.json", "src"]);
    expect(files).toContain("bin/modelwire.mjs");
    expect(files).toContain("dist/eval/index.js");
    expect(files).toContain("dist/worker/config.js");
    expect(files).toContain("dist/index.js");
    expect(files).toContain("dist/index.d.ts");
    expect(files).toContain("dist/index.d.ts.map");
    expect(files).toContain("dist/worker/app.js");
    expect(files).toContain("dist/wire/index.js");
    expect(files).toContain("dist/mcp/index.js");
    expect(files).toContain("dist/mcp/index.d.ts");
    expect(files).toContain("dist/compaction/index.js");
    expect(files).toContain("dist/compaction/index.d.ts");
    expect(files).toContain("dist/protocols/index.d.ts");
    const strays = files.filter((path) =>
      /(^|\/)(test|fixtures|bench)\/|\.test\.|tsconfig|wrangler/.test(path),
    );
    expect(strays).toEqual([]);
    // Every declaration's map points at a source file that ships.
    for (const map of files.filter((path) => path.endsWith(".d.ts.map"))) {
      const source = map.replace(/^dist\//, "src/").replace(/\.d\.ts\.map$/, ".ts");
      expect(files, map).toContain(source);
    }
  });

  it("(a) loads in plain node: every library entry, and the README's FakeProvider example", async () => {
    const node = bin("node");
    const entries = await run(node, ["entries.mjs"], library);
    expectOk(entries, "node entries.mjs");
    expect(entries.output).toMatch(/^entries ok: \d+ names/);
    const result = await run(node, ["example.mjs"], library);
    expectOk(result, "node example.mjs");
    expect(result.output).toBe(EXAMPLE_OUTPUT);
  });

  it("(a) the installed CLI runs an eval suite on a config's demo route, without Hono", async () => {
    writeFileSync(
      join(library, "suite.mjs"),
      'export default { name: "packed", tasks: [{ id: "hello", messages: [{ role: "user", content: "hello" }], check: () => true }] };\n',
    );
    writeFileSync(join(library, "routes.json"), JSON.stringify({ routes: { demo: { demo: true } } }));
    const result = await run(
      bin("node"),
      [
        "node_modules/.bin/modelwire",
        "eval",
        "suite.mjs",
        "--config",
        "routes.json",
        "--route",
        "demo",
        "--samples",
        "2",
        "--json",
        "out.json",
      ],
      library,
    );
    expectOk(result, "modelwire eval");
    expect(result.output).toContain("| hello | demo | 2 | 100.0 % | 34.2 % – 100.0 % |");
    const report = JSON.parse(readFileSync(join(library, "out.json"), "utf8")) as {
      totals: { n: number; passes: number }[];
    };
    expect(report.totals.map((total) => [total.n, total.passes])).toEqual([[2, 2]]);
  });

  it("(b) runs in Deno through npm: specifiers resolved from node_modules", async () => {
    const result = await run(bin("deno"), ["run", "--node-modules-dir=manual", "example-npm.mjs"], library);
    expectOk(result, "deno run example-npm.mjs");
    expect(result.output).toBe(EXAMPLE_OUTPUT);
  });

  it("(c) runs in Bun", async () => {
    const result = await run(bin("bun"), ["example.mjs"], library);
    expectOk(result, "bun example.mjs");
    expect(result.output).toBe(EXAMPLE_OUTPUT);
  });

  it("(d) a strict NodeNext TypeScript consumer compiles every README snippet against the published types", async () => {
    const snippets = readmeSnippets();
    expect(snippets.length).toBeGreaterThan(10);
    const preamble = preambleDeclarations();
    const compilerOptions = {
      target: "ES2023",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      skipLibCheck: false,
      noEmit: true,
    };
    const projects = { library: [] as string[], gateway: [] as string[] };
    snippets.forEach((snippet, index) => {
      const project = snippet.code.includes('"modelwire/worker"') ? "gateway" : "library";
      const file = `readme-${String(index + 1).padStart(2, "0")}.ts`;
      // Each snippet is its own module: its names do not leak into the next one. Above it, the preamble's
      // declarations of the free names it uses (a module-scope `declare` shadows a DOM global like `history`).
      const needed = preamble.filter(
        ({ name }) => !declares(snippet.code, name) && usesName(snippet.code, name),
      );
      const text = `${needed.map((d) => d.line).join("\n")}\n${snippet.code}\nexport {};\n`;
      writeFileSync(join(project === "gateway" ? gateway : library, file), text);
      projects[project].push(file);
    });
    writeFileSync(
      join(library, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { ...compilerOptions, lib: ["ES2023", "DOM", "DOM.Iterable"], types: [] },
        files: projects.library,
      }),
    );
    writeFileSync(
      join(gateway, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { ...compilerOptions, lib: ["ES2023"], types: ["@cloudflare/workers-types"] },
        files: projects.gateway,
      }),
    );
    expect(projects.gateway.length).toBeGreaterThan(0);
    const tsc = join(root, "node_modules/typescript/bin/tsc");
    const [libraryCheck, gatewayCheck] = await Promise.all([
      run(bin("node"), [tsc, "-p", "tsconfig.json"], library),
      run(bin("node"), [tsc, "-p", "tsconfig.json"], gateway),
    ]);
    expectOk(libraryCheck, "tsc (library consumer)");
    expectOk(gatewayCheck, "tsc (gateway consumer)");
  });

  it("(e) bundles for Workers with wrangler, without nodejs_compat and without node: imports", async () => {
    expect(compatibilityDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // A minimal Worker on the library alone (the library consumer has no Hono installed).
    writeFileSync(
      join(library, "worker.ts"),
      `import { anthropic, collectStream } from "modelwire";
export default {
  async fetch(request: Request, env: { ANTHROPIC_API_KEY: string }): Promise<Response> {
    const claude = anthropic({ apiKey: env.ANTHROPIC_API_KEY, model: "claude-sonnet-4-6" });
    const answer = await collectStream(claude.stream([{ role: "user", content: await request.text() }]));
    return new Response(answer.message.content);
  },
};
`,
    );
    writeFileSync(
      join(library, "wrangler.toml"),
      `name = "library-consumer"\nmain = "worker.ts"\ncompatibility_date = "${compatibilityDate}"\n`,
    );
    // The gateway, as README "Your own Worker" builds it.
    writeFileSync(
      join(gateway, "worker.ts"),
      `import { createWorker } from "modelwire/worker";
const worker = createWorker();
export default { fetch: worker.fetch };
export const { SessionObject, TaskObject, KeyObject, StreamObject } = worker;
`,
    );
    const bindings = wranglerToml.slice(wranglerToml.indexOf("[[durable_objects.bindings]]"));
    writeFileSync(
      join(gateway, "wrangler.toml"),
      `name = "gateway-consumer"\nmain = "worker.ts"\ncompatibility_date = "${compatibilityDate}"\ncompatibility_flags = ["enable_request_signal"]\n\n${bindings}`,
    );
    for (const dir of [library, gateway]) {
      const result = await run(bin("wrangler"), ["deploy", "--dry-run", "--outdir", "out"], dir);
      expectOk(result, `wrangler deploy --dry-run in ${dir}`);
      expect(result.output).not.toMatch(/nodejs_compat/);
      const bundle = readFileSync(join(dir, "out", "worker.js"), "utf8");
      expect(bundle.length).toBeGreaterThan(1000);
      expect(bundle).not.toMatch(/(from\s*|import\s*\(\s*|require\(\s*)["']node:/);
    }
    const libraryBundle = readFileSync(join(library, "out", "worker.js"), "utf8");
    expect(libraryBundle).toContain("anthropic-version");
    expect(libraryBundle).not.toMatch(/\bhono\b/i);
    const gatewayBundle = readFileSync(join(gateway, "out", "worker.js"), "utf8");
    expect(gatewayBundle).toMatch(/class SessionObject|SessionObject =/);
  });

  it("(f) the JSR package: deno publish --dry-run finds no error and no slow type", async () => {
    // --allow-dirty: the check is of the files as they are, committed or not; a dry run writes nothing.
    const result = await run(bin("deno"), ["publish", "--dry-run", "--allow-dirty"], root);
    expectOk(result, "deno publish --dry-run");
    expect(result.output).toContain("Success Dry run complete");
    expect(result.output).not.toMatch(/^(error|warning)\b/im);
  });
});
