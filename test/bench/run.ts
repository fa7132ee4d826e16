/**
 * `npm run bench`: modelwire against the official SDKs, the AI SDK and two floors, fed identical bytes in
 * one process, and the bundle sizes. Prints markdown to stdout (progress goes to stderr).
 *
 * Scenarios: (a) throughput on a generated ~8 MiB Anthropic stream; (e) the same for an OpenAI Chat
 * Completions stream (the `openai` package as the official SDK; printed after (a)); (f) an OpenAI Responses
 * stream; (g) a Bedrock ConverseStream (AWS event-stream frames; no official SDK row); (b) first text event;
 * (c) peak live heap; (d) bundle sizes. `--only` ids are shared: `sdk` is the official SDK of the scenario,
 * `json-floor` / `byte-floor` its two floors.
 *
 * Method: rows run side by side in rounds; each round rotates the order, so no row always runs first
 * (cold) or last (after the others' garbage). Warm-up rounds are verified but not timed; a forced GC
 * precedes every run; every timed result is checked against what the generator put in before it counts.
 * Medians with the interquartile range; ratios are the median of per-round ratios (both runs in the same
 * round), which cancels most of the drift of a noisy machine.
 *
 *   node --expose-gc test/bench/run.ts [--scenarios=a,e,f,g,b,c,d] [--only=modelwire,sdk,ai-sdk,json-floor,byte-floor]
 *                                      [--reps=7] [--warmup=2] [--memory-reps=3]
 *
 * For a CPU profile of one row: `node --expose-gc --cpu-prof --cpu-prof-dir=/tmp/prof test/bench/run.ts
 * --scenarios=a --only=modelwire --reps=20`, then `node test/bench/profile-summary.ts /tmp/prof/*.cpuprofile`.
 *
 * @module
 */
import { arch, cpus, loadavg, platform, release, totalmem } from "node:os";
import { parseArgs } from "node:util";
import { chunkedBody, heldBody } from "./body.ts";
import { BUNDLE_TARGETS, measureTarget } from "./bundle.ts";
import { CONTENDERS, type Contender, openAIChatContenders, verify } from "./contenders.ts";
import { BEDROCK_CONTENDERS, RESPONSES_CONTENDERS } from "./contenders-responses-bedrock.ts";
import {
  chunkSizes,
  type GeneratedStream,
  generateAnthropicStream,
  generateOpenAIChatStream,
  splitCharacters,
} from "./generate.ts";
import { generateBedrockConverseStream } from "./generate-bedrock.ts";
import { generateOpenAIResponsesStream } from "./generate-responses.ts";
import { fixed, markdownTable, pairedRatio, summarize, withIqr } from "./stats.ts";

const gc = globalThis.gc;
if (!gc) {
  console.error("The benchmark forces GC between runs: run it as `node --expose-gc test/bench/run.ts`.");
  process.exit(2);
}
const collect: () => void = gc;

const { values: args } = parseArgs({
  options: {
    scenarios: { type: "string", default: "a,e,f,g,b,c,d" },
    only: { type: "string" },
    reps: { type: "string", default: "7" },
    warmup: { type: "string", default: "2" },
    "memory-reps": { type: "string", default: "3" },
  },
});
const scenarios = new Set(args.scenarios.split(","));
const only = args.only?.split(",");
const contenders = CONTENDERS.filter((contender) => !only || only.includes(contender.id));
const REPS = Math.max(1, Number(args.reps));
const WARMUP = Math.max(0, Number(args.warmup));
const MEMORY_REPS = Math.max(1, Number(args["memory-reps"]));

const SEED = 20_260_401;
const MAX_CHUNK = 4096;
const MiB = 1024 * 1024;
const THROUGHPUT_SHAPE = { targetBytes: 8 * MiB, thinkingShare: 0.2, toolShare: 0.25, toolCalls: 6 };
const OPENAI_CHAT_SHAPE = { targetBytes: 8 * MiB, reasoningShare: 0.2, toolShare: 0.25, toolCalls: 2 };
const OPENAI_RESPONSES_SHAPE = { targetBytes: 8 * MiB, reasoningShare: 0.2, toolShare: 0.25, toolCalls: 3 };
const BEDROCK_SHAPE = { targetBytes: 8 * MiB, reasoningShare: 0.2, toolShare: 0.25, toolCalls: 4 };
const MEMORY_SHAPE = { ...THROUGHPUT_SHAPE, targetBytes: 4 * MiB };
const LATENCY_SHAPE = { targetBytes: 64 * 1024, thinkingShare: 0, toolShare: 0.3, toolCalls: 1 };
/** How long the latency scenario holds the second read before giving up on the first text event. */
const HOLD_MS = 250;
/** Heap samples per memory run (a forced GC each). */
const MEMORY_SAMPLES = 32;

const progress = (message: string): void => {
  process.stderr.write(`${message}\n`);
};
const out = (text = ""): void => {
  process.stdout.write(`${text}\n`);
};

/** Round `round`'s order: the rows rotated by `round`. */
function rotate<T>(items: readonly T[], round: number): T[] {
  const shift = round % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

function describeStream(label: string, stream: GeneratedStream, sizes: Uint32Array): string {
  const toolJson = stream.expected.toolCalls.reduce(
    (sum, call) => sum + JSON.stringify(call.input).length,
    0,
  );
  return (
    `${label}: ${stream.bytes.length.toLocaleString("en")} bytes, ${stream.events.toLocaleString("en")} events ` +
    `(text ${stream.expected.text.length.toLocaleString("en")} chars, thinking ` +
    `${stream.expected.thinking.length.toLocaleString("en")} chars + ${stream.expected.signature.length}-char ` +
    `signature, ${stream.expected.toolCalls.length} tool calls with ${toolJson.toLocaleString("en")} chars of ` +
    `input JSON), in ${sizes.length.toLocaleString("en")} chunks of 1–${MAX_CHUNK} bytes; ` +
    `${splitCharacters(stream.bytes, sizes)} chunk boundaries split a UTF-8 character.`
  );
}

// ---------------------------------------------------------------------------------------------------------
// (a) and (e) throughput

interface ThroughputSetup {
  /** Scenario letter, for progress lines. */
  label: string;
  /** Heading of the floor ratio column (default "× JSON.parse floor"). */
  floorColumn?: string;
  heading: string;
  /** Says what the stream is and what was checked; the rounds are added. */
  description: string;
  stream: GeneratedStream;
  sizes: Uint32Array;
  rows: readonly Contender[];
}

/** Runs `setup.rows` in rotating rounds, prints the table, returns modelwire's paired ratio to the JSON floor. */
async function measureThroughput(setup: ThroughputSetup): Promise<number | undefined> {
  const { stream, sizes, rows: contenders } = setup;
  const megabytes = stream.bytes.length / 1e6;
  const speeds = new Map<Contender, number[]>(contenders.map((contender) => [contender, []]));
  const times = new Map<Contender, number[]>(contenders.map((contender) => [contender, []]));
  for (let round = 0; round < WARMUP + REPS; round++) {
    const timed = round >= WARMUP;
    for (const contender of rotate(contenders, round)) {
      collect();
      const body = chunkedBody(stream.bytes, sizes);
      const start = performance.now();
      const outcome = await contender.run(body, stream);
      const elapsed = performance.now() - start;
      verify(contender, outcome, stream);
      if (timed) {
        times.get(contender)!.push(elapsed);
        speeds.get(contender)!.push(megabytes / (elapsed / 1000));
      }
    }
    progress(`(${setup.label}) throughput: round ${round + 1}/${WARMUP + REPS}${timed ? "" : " (warm-up)"}`);
  }

  const floor = contenders.find((contender) => contender.id === "json-floor");
  const sdk = contenders.find((contender) => contender.id === "sdk");
  const modelwire = contenders.find((contender) => contender.id === "modelwire");
  const rows = [
    [
      "Row",
      "MB/s median (IQR)",
      "ms median",
      setup.floorColumn ?? "× JSON.parse floor",
      "× official SDK",
      "× modelwire",
    ],
    ...contenders.map((contender) => {
      const speed = speeds.get(contender)!;
      const ratio = (reference: Contender | undefined): string =>
        reference ? fixed(pairedRatio(speed, speeds.get(reference)!), 2) : "–";
      return [
        contender.name,
        withIqr(summarize(speed), 1),
        fixed(summarize(times.get(contender)!).median, 0),
        ratio(floor),
        ratio(sdk),
        ratio(modelwire),
      ];
    }),
  ];
  out(setup.heading);
  out();
  out(`${setup.description} ${REPS} timed rounds after ${WARMUP} warm-up rounds; MB = 10⁶ bytes.`);
  out();
  out(markdownTable(rows, [1, 2, 3, 4, 5]));
  out();
  return modelwire && floor ? pairedRatio(speeds.get(modelwire)!, speeds.get(floor)!) : undefined;
}

async function throughput(): Promise<number | undefined> {
  const stream = generateAnthropicStream({ seed: SEED, ...THROUGHPUT_SHAPE });
  const sizes = chunkSizes(SEED + 1, stream.bytes.length, MAX_CHUNK);
  return measureThroughput({
    label: "a",
    heading: "## (a) Throughput: assemble a generated ~8 MiB Anthropic stream",
    description:
      `${describeStream("Stream", stream, sizes)} Every result checked equal to what was generated ` +
      "(text, thinking, signature, tool ids, names and inputs; event count for the floors).",
    stream,
    sizes,
    rows: contenders,
  });
}

async function openAIChatThroughput(): Promise<number | undefined> {
  const stream = generateOpenAIChatStream({ seed: SEED + 5, ...OPENAI_CHAT_SHAPE });
  const sizes = chunkSizes(SEED + 6, stream.bytes.length, MAX_CHUNK);
  const chat = await openAIChatContenders();
  const rows = chat.contenders.filter((contender) => !only || only.includes(contender.id));
  const toolJson = stream.expected.toolCalls.reduce(
    (sum, call) => sum + JSON.stringify(call.input).length,
    0,
  );
  const unchecked = rows
    .filter((contender) => contender.unchecked?.includes("thinking"))
    .map((contender) => contender.short);
  const description =
    `Stream: ${stream.bytes.length.toLocaleString("en")} bytes, ${stream.events.toLocaleString("en")} ` +
    `\`data:\` events (text ${stream.expected.text.length.toLocaleString("en")} chars in small ` +
    `\`delta.content\` chunks, \`reasoning_content\` ${stream.expected.thinking.length.toLocaleString("en")} ` +
    `chars, ${stream.expected.toolCalls.length} tool calls with ${toolJson.toLocaleString("en")} chars of ` +
    "`function.arguments` JSON in pieces interleaved by `index`, a `finish_reason` chunk, a usage chunk with " +
    `\`choices: []\` and \`[DONE]\`), in ${sizes.length.toLocaleString("en")} chunks of 1–${MAX_CHUNK} bytes; ` +
    `${splitCharacters(stream.bytes, sizes)} chunk boundaries split a UTF-8 character. modelwire reads it ` +
    'with a DeepSeek-style profile (`endpoint: { kind: "deepseek-like", … }`). Every result checked equal ' +
    "to what was generated (text, reasoning, tool call ids, names and arguments; event count for the floors)" +
    (unchecked.length > 0
      ? `, except reasoning for ${unchecked.join(", ")}: the \`openai\` package keeps only the last ` +
        "`reasoning_content` piece (it copies unknown delta fields onto the message)."
      : ".") +
    (chat.notes.length > 0 ? ` ${chat.notes.join(" ")}` : "");
  return measureThroughput({
    label: "e",
    heading: "## (e) Throughput: assemble a generated ~8 MiB OpenAI Chat Completions stream",
    description,
    stream,
    sizes,
    rows,
  });
}

/** What a generated stream's tool calls carry, for the descriptions. */
function toolChars(stream: GeneratedStream): number {
  return stream.expected.toolCalls.reduce((sum, call) => sum + JSON.stringify(call.input).length, 0);
}

/** Rows of a scenario after `--only`. */
function selected(rows: readonly Contender[]): Contender[] {
  return rows.filter((contender) => !only || only.includes(contender.id));
}

async function openAIResponsesThroughput(): Promise<number | undefined> {
  const stream = generateOpenAIResponsesStream({ seed: SEED + 7, ...OPENAI_RESPONSES_SHAPE });
  const sizes = chunkSizes(SEED + 8, stream.bytes.length, MAX_CHUNK);
  const description =
    `Stream: ${stream.bytes.length.toLocaleString("en")} bytes, ${stream.events.toLocaleString("en")} ` +
    "events (`event:` + `data:` lines with `sequence_number`: `response.created`, `in_progress`, a reasoning " +
    `item with ${stream.expected.thinking.length.toLocaleString("en")} chars of summary in ` +
    "`reasoning_summary_text.delta` pieces and a " +
    `${stream.expected.signature.length.toLocaleString("en")}-char \`encrypted_content\`, a message item with ` +
    `${stream.expected.text.length.toLocaleString("en")} chars in small \`output_text.delta\` pieces, ` +
    `${stream.expected.toolCalls.length} function calls with ${toolChars(stream).toLocaleString("en")} chars ` +
    "of `arguments` in `function_call_arguments.delta` pieces, every part and item closed by `.done` events " +
    "repeating its text, and `response.completed` carrying all the output items and the usage), in " +
    `${sizes.length.toLocaleString("en")} chunks of 1–${MAX_CHUNK} bytes; ` +
    `${splitCharacters(stream.bytes, sizes)} chunk boundaries split a UTF-8 character. Every result checked ` +
    "equal to what was generated (text, reasoning summary, `encrypted_content`, call ids, names and " +
    "arguments, input and output tokens; event count for the floors). modelwire and `openai` take the final " +
    "items from `response.completed`, as the API means them to; the AI SDK's text and tool calls come from " +
    "its deltas and `.done` events.";
  return measureThroughput({
    label: "f",
    heading: "## (f) Throughput: assemble a generated ~8 MiB OpenAI Responses stream",
    description,
    stream,
    sizes,
    rows: selected(RESPONSES_CONTENDERS),
  });
}

async function bedrockThroughput(): Promise<number | undefined> {
  const stream = generateBedrockConverseStream({ seed: SEED + 9, ...BEDROCK_SHAPE });
  const sizes = chunkSizes(SEED + 10, stream.bytes.length, MAX_CHUNK);
  const description =
    `Body: ${stream.bytes.length.toLocaleString("en")} bytes, ${stream.events.toLocaleString("en")} AWS ` +
    "event-stream frames encoded with `@smithy/eventstream-codec` (`:event-type`, `:content-type`, " +
    "`:message-type` headers; JSON payloads with the service's random-length `p` padding): `messageStart`, " +
    `a reasoning block of ${stream.expected.thinking.length.toLocaleString("en")} chars in ` +
    `\`reasoningContent.text\` deltas and a ${stream.expected.signature.length}-char signature delta, ` +
    `${stream.expected.text.length.toLocaleString("en")} chars of text in small \`text\` deltas, ` +
    `${stream.expected.toolCalls.length} \`toolUse\` blocks with ${toolChars(stream).toLocaleString("en")} ` +
    "chars of input JSON in 1–24-char pieces, `contentBlockStop`s, `messageStop` and `metadata` with the " +
    `usage), in ${sizes.length.toLocaleString("en")} chunks of 1–${MAX_CHUNK} bytes; ` +
    `${splitCharacters(stream.bytes, sizes)} chunk boundaries split a UTF-8 character. Every result checked ` +
    "equal to what was generated (text, reasoning, signature, tool ids, names and inputs, input and output " +
    "tokens; frame count for the floors). No official SDK row: `@aws-sdk/client-bedrock-runtime` is not a " +
    "devDependency. The decoding floor cuts frames by their length prefix and has `@smithy/eventstream-codec` " +
    "decode each (CRC32s, headers), then one `JSON.parse` per payload; the frame-scan floor only hops from " +
    "length prefix to length prefix.";
  return measureThroughput({
    label: "g",
    heading: "## (g) Throughput: assemble a generated ~8 MiB Bedrock ConverseStream",
    floorColumn: "× decoding floor",
    description,
    stream,
    sizes,
    rows: selected(BEDROCK_CONTENDERS),
  });
}

// ---------------------------------------------------------------------------------------------------------
// (b) first text event

interface LatencyVerdict {
  beforeSecondRead: number;
  whileHeld: number;
  runs: number;
}

async function latency(): Promise<LatencyVerdict | undefined> {
  const stream = generateAnthropicStream({ seed: SEED + 2, ...LATENCY_SHAPE });
  const reps = Math.max(REPS, 9);
  const latencies = new Map<Contender, number[]>(contenders.map((contender) => [contender, []]));
  const beforeSecondRead = new Map<Contender, number>(contenders.map((contender) => [contender, 0]));
  const whileHeld = new Map<Contender, number>(contenders.map((contender) => [contender, 0]));
  for (let round = 0; round < WARMUP + reps; round++) {
    const timed = round >= WARMUP;
    for (const contender of rotate(contenders, round)) {
      collect();
      const { body, probe } = heldBody(stream.bytes, stream.firstTextEnd, HOLD_MS);
      const outcome = await contender.run(body, stream, () => probe.surfaced());
      verify(contender, outcome, stream);
      if (!timed) continue;
      latencies.get(contender)!.push(probe.surfacedAt - probe.firstReadAt);
      const surfaced = !Number.isNaN(probe.surfacedAt);
      if (surfaced && (Number.isNaN(probe.secondReadAt) || probe.surfacedAt < probe.secondReadAt)) {
        beforeSecondRead.set(contender, beforeSecondRead.get(contender)! + 1);
      }
      if (surfaced && probe.surfacedAt < probe.releasedAt)
        whileHeld.set(contender, whileHeld.get(contender)! + 1);
    }
  }
  progress(`(b) first text event: ${WARMUP + reps} rounds`);

  const rows = [
    [
      "Row",
      "surfaced before the 2nd read was requested",
      "surfaced while the rest was held",
      "first read → first text, ms median (IQR)",
    ],
    ...contenders.map((contender) => [
      contender.name,
      `${beforeSecondRead.get(contender)}/${reps}`,
      `${whileHeld.get(contender)}/${reps}`,
      withIqr(summarize(latencies.get(contender)!), 3),
    ]),
  ];
  out("## (b) First text event: does the client surface it from the read that delivered it?");
  out();
  out(
    `The first read returns \`message_start\`, \`content_block_start\` and the first \`text_delta\` ` +
      `(${stream.firstTextEnd} bytes); the second read is held until the row reports its first text event ` +
      `or ${HOLD_MS} ms pass, then the rest (${(stream.bytes.length - stream.firstTextEnd).toLocaleString("en")} ` +
      `bytes) arrives. Asking for a second read early is read-ahead (pipes do it) and harmless; ` +
      `"while held" = no buffering. ${reps} rounds after ${WARMUP} warm-up rounds.`,
  );
  out();
  out(markdownTable(rows, [1, 2, 3]));
  out();
  const modelwire = contenders.find((contender) => contender.id === "modelwire");
  return modelwire
    ? { beforeSecondRead: beforeSecondRead.get(modelwire)!, whileHeld: whileHeld.get(modelwire)!, runs: reps }
    : undefined;
}

// ---------------------------------------------------------------------------------------------------------
// (c) peak live heap

interface HeapRun {
  peak: number;
  end: number;
  peakArrayBuffers: number;
}

async function heapRun(contender: Contender, stream: GeneratedStream, sizes: Uint32Array): Promise<HeapRun> {
  collect();
  collect();
  const base = process.memoryUsage();
  const run: HeapRun = { peak: 0, end: 0, peakArrayBuffers: 0 };
  const sample = (): number => {
    collect();
    const now = process.memoryUsage();
    const live = now.heapUsed - base.heapUsed;
    run.peak = Math.max(run.peak, live);
    run.peakArrayBuffers = Math.max(run.peakArrayBuffers, now.arrayBuffers - base.arrayBuffers);
    return live;
  };
  const every = Math.max(1, Math.floor(sizes.length / MEMORY_SAMPLES));
  const body = chunkedBody(stream.bytes, sizes, (pull) => {
    if (pull % every === every - 1) sample();
  });
  const outcome = await contender.run(body, stream);
  // The result is still referenced (verified below), so this sample counts what the caller keeps.
  run.end = sample();
  verify(contender, outcome, stream);
  return run;
}

async function memory(): Promise<number | undefined> {
  const stream = generateAnthropicStream({ seed: SEED + 3, ...MEMORY_SHAPE });
  const sizes = chunkSizes(SEED + 4, stream.bytes.length, MAX_CHUNK);
  const runs = new Map<Contender, HeapRun[]>(contenders.map((contender) => [contender, []]));
  for (let round = 0; round < 1 + MEMORY_REPS; round++) {
    for (const contender of rotate(contenders, round)) {
      const run = await heapRun(contender, stream, sizes);
      if (round >= 1) runs.get(contender)!.push(run);
    }
    progress(`(c) peak heap: round ${round + 1}/${1 + MEMORY_REPS}${round === 0 ? " (warm-up)" : ""}`);
  }
  const size = stream.bytes.length;
  const mib = (bytes: number): string => fixed(bytes / MiB, 2);
  const rows = [
    [
      "Row",
      "peak live heap, MiB median (IQR)",
      "× body",
      "live heap at the end (result kept), MiB",
      "peak ArrayBuffer growth, MiB",
    ],
    ...contenders.map((contender) => {
      const peak = summarize(runs.get(contender)!.map((run) => run.peak));
      return [
        contender.name,
        `${mib(peak.median)} (${mib(peak.q1)}–${mib(peak.q3)})`,
        fixed(peak.median / size, 2),
        mib(summarize(runs.get(contender)!.map((run) => run.end)).median),
        mib(summarize(runs.get(contender)!.map((run) => run.peakArrayBuffers)).median),
      ];
    }),
  ];
  out("## (c) Peak live heap while consuming a 4 MiB stream");
  out();
  out(
    `${describeStream("Stream", stream, sizes)} \`process.memoryUsage().heapUsed\` after a forced GC, every ${Math.max(1, Math.floor(sizes.length / MEMORY_SAMPLES))} ` +
      "reads and once at the end with the result still referenced, minus the same figure just before the call. " +
      "The body's bytes live in ArrayBuffers outside the JS heap, so they are not counted; ArrayBuffer growth " +
      `(copies a client makes of the bytes) is shown apart. ${MEMORY_REPS} rounds after 1 warm-up round.`,
  );
  out();
  out(markdownTable(rows, [1, 2, 3, 4]));
  out();
  const modelwire = contenders.find((contender) => contender.id === "modelwire");
  return modelwire ? summarize(runs.get(modelwire)!.map((run) => run.peak)).median / size : undefined;
}

// ---------------------------------------------------------------------------------------------------------
// (d) bundle size

async function bundles(): Promise<
  { name: string; gzipped: number; budget: number; target: number | undefined }[]
> {
  const results: { name: string; gzipped: number; budget: number; target: number | undefined }[] = [];
  const rows = [
    ["Bundle", "minified bytes", "gzipped bytes", "budget (gzipped)", "node: imports", "largest parts"],
  ];
  for (const target of BUNDLE_TARGETS) {
    const measured = await measureTarget(target);
    results.push({
      name: target.name,
      gzipped: measured.gzipped,
      budget: target.budget,
      target: target.target,
    });
    rows.push([
      target.name,
      measured.minified.toLocaleString("en"),
      measured.gzipped.toLocaleString("en"),
      `${target.budget.toLocaleString("en")} ${measured.gzipped <= target.budget ? "✓" : "✗ over"}`,
      measured.nodeImports.length + measured.requireCalls.length === 0
        ? "none"
        : [...measured.nodeImports, ...measured.requireCalls.map(() => "require(")].join(", "),
      measured.groups
        .slice(0, 4)
        .map((group) => `${group.group} ${(group.bytes / 1000).toFixed(1)} KB`)
        .join(", "),
    ]);
  }
  progress("(d) bundles: done");
  out("## (d) Bundle size");
  out();
  out(
    "esbuild `--bundle --minify --format=esm --platform=browser` (the gateway: `wrangler deploy --dry-run` " +
      "with wrangler.toml), then gzip at zlib's default level. " +
      "KB = 1000 bytes; largest parts are minified bytes per package or source directory (esbuild metafile).",
  );
  out();
  out(markdownTable(rows, [1, 2, 3]));
  out();
  return results;
}

// ---------------------------------------------------------------------------------------------------------

const cpu = cpus();
out("# modelwire benchmark");
out();
out(
  `${new Date().toISOString().slice(0, 10)} · Node ${process.version} · ${platform()} ${release()} ${arch()} · ` +
    `${cpu.length} × ${cpu[0]?.model.trim() ?? "unknown CPU"} · ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM · ` +
    `load average ${loadavg()
      .map((load) => load.toFixed(1))
      .join(" / ")} at start · \`npm run bench\``,
);
out();

const targets: string[][] = [["Target", "Measured", "Met"]];
const started = performance.now();
if (scenarios.has("a")) {
  const ratio = await throughput();
  if (ratio !== undefined) {
    targets.push([
      "anthropic assembly ≥ 0.8× the JSON.parse floor's throughput",
      `${fixed(ratio, 3)}×`,
      ratio >= 0.8 ? "yes" : "no",
    ]);
  }
}
if (scenarios.has("e")) {
  const ratio = await openAIChatThroughput();
  if (ratio !== undefined) {
    targets.push([
      "openai-chat assembly ≥ 0.8× the JSON.parse floor's throughput",
      `${fixed(ratio, 3)}×`,
      ratio >= 0.8 ? "yes" : "no",
    ]);
  }
}
if (scenarios.has("f")) {
  const ratio = await openAIResponsesThroughput();
  if (ratio !== undefined) {
    targets.push([
      "openai-responses assembly ≥ 0.8× the JSON.parse floor's throughput",
      `${fixed(ratio, 3)}×`,
      ratio >= 0.8 ? "yes" : "no",
    ]);
  }
}
if (scenarios.has("g")) {
  const ratio = await bedrockThroughput();
  if (ratio !== undefined) {
    targets.push([
      "bedrock-converse assembly ≥ 0.8× the decoding floor's throughput (eventstream-codec + JSON.parse)",
      `${fixed(ratio, 3)}×`,
      ratio >= 0.8 ? "yes" : "no",
    ]);
  }
}
if (scenarios.has("b")) {
  const verdict = await latency();
  if (verdict) {
    targets.push([
      "first text event surfaced within the read that delivered it",
      `${verdict.beforeSecondRead}/${verdict.runs} before the next read, ${verdict.whileHeld}/${verdict.runs} while held`,
      verdict.beforeSecondRead === verdict.runs ? "yes" : "no",
    ]);
  }
}
if (scenarios.has("c")) {
  const ratio = await memory();
  if (ratio !== undefined) {
    targets.push(["peak live heap ≤ 0.6× the body", `${fixed(ratio, 3)}×`, ratio <= 0.6 ? "yes" : "no"]);
  }
}
if (scenarios.has("d")) {
  for (const result of await bundles()) {
    const goal = result.target ?? result.budget;
    targets.push([
      `${result.name} ≤ ${goal / 1000} KB gzipped${result.target ? ` (enforced budget ${result.budget / 1000} KB)` : ""}`,
      `${result.gzipped.toLocaleString("en")} bytes`,
      result.gzipped <= goal ? "yes" : "no",
    ]);
  }
}
if (targets.length > 1) {
  out("## Targets (modelwire)");
  out();
  out(markdownTable(targets));
  out();
}
out(`Total time ${((performance.now() - started) / 1000).toFixed(0)} s.`);
