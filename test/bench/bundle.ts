/**
 * Bundle sizes, as a deployer would see them: esbuild `--bundle --minify --format=esm --platform=browser`,
 * then gzip (zlib's default level, as `gzip` and `CompressionStream` use). Shared by `npm run bench` and
 * `test/tooling/bundle-size.test.ts`; sizes are deterministic, so the test can hold a budget.
 *
 * The full gateway Worker is measured by wrangler itself, not by a copy of its settings: `wrangler deploy
 * --dry-run --outdir <tmp>` with the repository's wrangler.toml (its conditions, its `cloudflare:` externals,
 * its `minify` and `keep_names`): exactly what `npx wrangler deploy` would upload, the main module gzipped
 * the same way ({@link measureWrangler}; about 2 s, offline).
 *
 * Node built-ins are marked external rather than left to fail resolution, so a stray `node:` import shows
 * up in the output, where {@link measureBundle} reports it.
 *
 * @module
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** A bundle with a gzip budget. KB = 1000 bytes. */
export interface BundleTarget {
  name: string;
  /** Entry file, relative to the repository root. */
  entry: string;
  /** Most gzipped bytes allowed: `test/tooling/bundle-size.test.ts` fails above it. */
  budget: number;
  /**
   * The goal set for this bundle, when it is tighter than the enforced budget (the bench reports whether it
   * is met). The whole library entry's goal of 30 KB was set with one adapter in it; with four adapters,
   * the substrate and the agent loop it is not met, and the budget holds it from growing further.
   */
  target?: number;
  /**
   * `"wrangler"`: the entry is wrangler.toml's `main`, built by `wrangler deploy --dry-run`
   * ({@link measureWrangler}) rather than by the esbuild call above.
   */
  builder?: "esbuild" | "wrangler";
}

export const BUNDLE_TARGETS: readonly BundleTarget[] = [
  // Goal 12 KB; enforced at 19.8 KB (18.6 KB until issue 17: native calls — `Provider.native`, the
  // checked passthrough stream and the count-tokens call every HTTP provider carries, so a gateway passes a
  // client's own dialect through — ~1.2 KB; moving them out of the one-adapter path is issue 22's).
  // 14.6 KB until content parts and structured output, issue 16: the
  // Messages part mapping with its refusals, the shared content readers and part check, the forced output
  // tool and reading `Response.object`, refusal text — ~3.7 KB; getting back under the goal is issue 22's).
  // Over the goal before that: the mid-tool-loop thinking guard, header-credential
  // scrubbing and the tool-pairing module shared with Bedrock (~500 bytes); the upstream deadlines and the
  // encoding-aware credential redaction every adapter shares (~1.2 KB); the never-throw stored-history
  // helpers and the one native-replay rule every converter calls (~550 bytes); the protocol contract and
  // the shared HTTP shell (~190 bytes). eventsource-parser is 1.7 KB of it (see the README's Performance
  // section).
  {
    name: "one-adapter Worker (test/bench/worker.ts)",
    entry: "test/bench/worker.ts",
    // 20.24 KB until issue 22's cuts: one plain-object check in the protocols instead of three copies
    // (measured -7 bytes).
    // 20.03 KB until the compaction review: Anthropic's compaction iterations billed in usage, the
    // context management on native passthrough, `pause` for a compaction stop (measured +207 bytes);
    // 19.85 KB until issue 21's `anthropic({ contextManagement })` (server-side compaction: the body field,
    // its beta flags, the settings check; measured +180 bytes).
    // 19.8 KB until every protocol's reasoning shape was listed in one table (Gemini's among them, ~30 bytes).
    // 20.23 KB until issue 22's JSON-shape fast paths (the Anthropic delta pattern, the idle timer: measured +386 bytes).
    budget: 20_620,
    target: 12_000,
  },
  {
    name: "fallback Worker: 2 adapters + retry + fallback (test/bench/worker-fallback.ts)",
    entry: "test/bench/worker-fallback.ts",
    // 33.065 KB until issue 22's one plain-object check (measured -18 bytes);
    // 32.854 KB until the compaction review (the same three, measured +206 bytes);
    // 32.67 KB until issue 21's `anthropic({ contextManagement })` (measured +184 bytes);
    // 32.65 KB until issue 19's usage of a failed native call (`NativeAnswer.usage`, ~10 bytes);
    // 32.6 KB until the reasoning-shape table (~30 bytes); 31.5 KB until issue 17 (native calls, ~1.1 KB);
    // 25.8 KB until issue 16: two protocols' part mappings and structured output (~5.3 KB).
    // 33.045 KB until issue 22's JSON-shape fast paths (Anthropic and Chat patterns: measured +747 bytes).
    budget: 33_795,
    target: 24_000,
  },
  // Every adapter, the substrate, the agent loop and zod/mini; 84.02 KB until issue 22's one plain-object
  // check in the protocols instead of five copies (measured -53 bytes); 83.745 KB until the compaction review (the
  // same three, and runAgent going on past a failed compaction or a paused turn: measured +271 bytes);
  // 83.725 KB until one `bytesToBase64url`
  // replaced the service-account JWT's own (+20 bytes: the shared helper's name and export); 83.4 KB until issue 21's compaction hook in
  // runAgent and `contextManagement` (setting and config field; measured +325 bytes; the policy itself is
  // `modelwire/compaction`, outside this entry); 83.37 KB until issue 20's `toolOutput` (a tool
  // result's parts and error flag from `execute`, which MCP tools return: runAgent's brand check, +31 bytes;
  // the MCP client itself is `modelwire/mcp`, outside this entry); 83.35 KB until issue 19's per-key usage
  // (the usage a failed call reported before the failure, in its telemetry event and native answer:
  // +15 bytes); 81.6 KB until issue 19's OpenTelemetry
  // sink (`otlpSink`: OTLP/HTTP JSON spans in the GenAI conventions, the batch queue, the provider-name
  // table; the telemetry events' sampling options, response id and content: measured +1.7 KB);
  // 81 KB until the reviews of issues 17 and 18
  // (Vertex's beta allowlist and cache-scope strip, Bedrock's count max_tokens, the reasoning-shape table;
  // Gemini's call-order results and -latest profiles, the service-account token's refresh fallback and
  // one resend after a 401: ~0.5 KB); 68.8 KB until issue 17 (native calls, ~1.5 KB; Bedrock's
  // cache_control.scope strip, 0.2 KB) and issue 18 (the google-gemini protocol with gemini(), ~5.2 KB;
  // vertex() with the service-account JWT and Claude on Vertex, ~4.9 KB); 60 KB until content parts and structured
  // output, 64 KB until every protocol mapped them (Bedrock's media rules and per-model traits, Responses'
  // input_image / input_file and refusal events, Chat's moved tool-result media, Anthropic's documents).
  {
    name: "library entry (src/index.ts)",
    // 83.965 KB until issue 22's JSON-shape fast paths (measured +868 bytes for Anthropic and Chat, +246
    // for Responses).
    entry: "src/index.ts",
    budget: 85_090,
    target: 30_000,
  },
  // Everything `npx wrangler deploy` uploads: every adapter and protocol, Hono, zod/mini, the three client
  // dialects, the Durable Objects (sessions, tasks, keys, streams), the eval route and the MCP client for
  // tasks. Goal 60 KB (issue 22 item 4). 147.72 KB when the budget was added (measured 147,582 bytes;
  // wrangler's own figure, "gzip: 144.12 KiB", is the same zlib level — the `gzip -6` CLI makes 147,377 of
  // the same file) until issue 22's cuts: wrangler.toml's `keep_names = false` (-10.4 KB: no name-pinning
  // wrapper round every function), Hono's trie router alone (-1.4 KB), and one plain-object check and one
  // reasoning-effort mapping instead of copies (-63 bytes): 135,666 bytes.
  {
    name: "full gateway Worker (wrangler deploy --dry-run)",
    entry: "src/worker/index.ts",
    builder: "wrangler",
    // 135.67 KB until issue 22's JSON-shape fast paths (measured +844 bytes for Anthropic and Chat, +240
    // for Responses).
    budget: 136_760,
    target: 60_000,
  },
];

/** What went into a bundle and how big it came out. */
export interface BundleMeasurement {
  minified: number;
  gzipped: number;
  /** `node:` (or bare built-in) modules the bundle imports. */
  nodeImports: string[];
  /** Source excerpts around each `require(` call or esbuild `require` shim in the output. */
  requireCalls: string[];
  /** Minified bytes per input file, largest first. */
  inputs: { path: string; bytes: number }[];
  /** Minified bytes per package (`zod`, `eventsource-parser`, …) or `src/<dir>` for the library. */
  groups: { group: string; bytes: number }[];
}

/** The source to bundle: a file under the root, or literal code (for probes). */
export type BundleSource = { entry: string } | { contents: string };

const NODE_BUILTINS = ["node:*", ...builtinModules];

/** Bundles `source` as described above and measures the result. */
export async function measureBundle(source: BundleSource): Promise<BundleMeasurement> {
  const result = await build({
    ...("entry" in source
      ? { entryPoints: [join(ROOT, source.entry)] }
      : { stdin: { contents: source.contents, resolveDir: ROOT, loader: "ts", sourcefile: "probe.ts" } }),
    absWorkingDir: ROOT,
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    // The gateway's Durable Objects import the Workers runtime module; it is provided, not bundled.
    external: [...NODE_BUILTINS, "cloudflare:workers"],
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error("esbuild produced no output");
  return measured(
    output.contents.byteLength,
    gzipSync(output.contents).byteLength,
    output.text,
    result.metafile,
  );
}

/** What {@link measureBundle} and {@link measureWrangler} report, from the code and esbuild's metafile. */
function measured(minified: number, gzipped: number, code: string, metafile: Metafile): BundleMeasurement {
  const nodeImports = new Set<string>();
  for (const meta of Object.values(metafile.outputs)) {
    for (const imported of meta.imports) {
      // The Workers runtime's own modules are provided, as `cloudflare:workers` is.
      if (imported.external && !imported.path.startsWith("cloudflare:")) nodeImports.add(imported.path);
    }
  }
  // Belt and braces: anything that reads like a node: specifier in the emitted code.
  for (const match of code.matchAll(/["'](node:[\w/]+)["']/g)) nodeImports.add(match[1]!);

  // `require("x")` itself, and esbuild's shim for a require it could not bundle (`typeof require`,
  // `require.apply`): either means CommonJS or a Node module reached the bundle.
  const requireCalls = [...code.matchAll(/\brequire\s*\(|\btypeof require\b|\brequire\.apply\b/g)].map(
    (match) => code.slice(Math.max(0, match.index - 40), match.index + 40),
  );

  const inputs: { path: string; bytes: number }[] = [];
  const groups = new Map<string, number>();
  for (const meta of Object.values(metafile.outputs)) {
    for (const [path, input] of Object.entries(meta.inputs)) {
      if (input.bytesInOutput === 0) continue;
      inputs.push({ path, bytes: input.bytesInOutput });
      const group = groupOf(path);
      groups.set(group, (groups.get(group) ?? 0) + input.bytesInOutput);
    }
  }
  inputs.sort((a, b) => b.bytes - a.bytes);

  return {
    minified,
    gzipped,
    nodeImports: [...nodeImports].sort(),
    requireCalls,
    inputs,
    groups: [...groups].map(([group, bytes]) => ({ group, bytes })).sort((a, b) => b.bytes - a.bytes),
  };
}

/** Measures `target` with the builder it names. */
export function measureTarget(target: BundleTarget): Promise<BundleMeasurement> {
  return target.builder === "wrangler"
    ? measureWrangler(target.entry)
    : measureBundle({ entry: target.entry });
}

const run = promisify(execFile);

/**
 * Builds the Worker the way `npx wrangler deploy` would (wrangler.toml at the root, which asks for
 * `minify`), without deploying (`--dry-run`), and measures the modules it wrote. `entry` must be wrangler.toml's `main`: it
 * is checked against the build's entry point, so the two cannot drift apart unnoticed.
 */
export async function measureWrangler(entry: string): Promise<BundleMeasurement> {
  const outdir = await mkdtemp(join(tmpdir(), "modelwire-wrangler-"));
  try {
    await run(
      process.execPath,
      [
        join(ROOT, "node_modules/wrangler/bin/wrangler.js"),
        "deploy",
        "--dry-run",
        "--outdir",
        outdir,
        "--metafile",
        join(outdir, "meta.json"),
      ],
      // Telemetry off: the build must not reach out, and needs no account.
      { cwd: ROOT, env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" }, timeout: 120_000 },
    );
    const metafile = JSON.parse(await readFile(join(outdir, "meta.json"), "utf8")) as Metafile;
    const modules = (await readdir(outdir)).filter((file) => /\.[cm]?js$/.test(file));
    const contents = await Promise.all(modules.map((file) => readFile(join(outdir, file))));
    const outputs = Object.values(metafile.outputs);
    if (!outputs.some((output) => output.entryPoint === entry)) {
      throw new Error(
        `wrangler built ${outputs.map((output) => output.entryPoint).join(", ")}, not ${entry}`,
      );
    }
    return measured(
      contents.reduce((sum, bytes) => sum + bytes.byteLength, 0),
      contents.reduce((sum, bytes) => sum + gzipSync(bytes).byteLength, 0),
      contents.map((bytes) => bytes.toString("utf8")).join("\n"),
      metafile,
    );
  } finally {
    await rm(outdir, { recursive: true, force: true });
  }
}

type Metafile = {
  outputs: Record<
    string,
    {
      entryPoint?: string;
      imports: { path: string; external?: boolean }[];
      inputs: Record<string, { bytesInOutput: number }>;
    }
  >;
};

function groupOf(path: string): string {
  const packaged = /node_modules\/((?:@[^/]+\/)?[^/]+)(?:\/(?:v4\/)?(mini|core|classic|locales))?/.exec(path);
  if (packaged) return packaged[2] ? `${packaged[1]}/${packaged[2]}` : packaged[1]!;
  const local = /^(src\/[^/]+(?:\/[^/]+)?)\//.exec(path);
  return local ? local[1]! : path;
}
