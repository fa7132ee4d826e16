/**
 * The README's "Images, documents and structured output" examples run as written, against a fetch that
 * answers for Anthropic, Bedrock, OpenAI and the invoice's host and records what each got: the screenshot
 * goes out as an image block, the invoice URL as a URL to Anthropic and as bytes to Bedrock (downloaded
 * only by the explicit `inlineUrlParts`), and the zod schema as `text.format`, its answer read back as the
 * validated object.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it, vi } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const scratch = join(root, "test", ".scratch-parts");

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function examplesUnder(heading: string): string[] {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const start = readme.indexOf(heading);
  expect(start).toBeGreaterThan(-1);
  const section = readme.slice(start, readme.indexOf("\n## ", start + heading.length));
  return [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const PDF = new TextEncoder().encode("%PDF-1.4 invoice 1042: total 1250.50 EUR due 2026-12-31\n%%EOF");
const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

interface Seen {
  url: string;
  body: Record<string, unknown> | undefined;
}

function fakeFetch(seen: Seen[]): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input instanceof Request ? input.url : input);
    const raw = input instanceof Request ? await input.text() : init?.body;
    const body =
      typeof raw === "string" && raw !== "" ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
    seen.push({ url, body });
    if (url === "https://example.com/invoice-1042.pdf") {
      return new Response(PDF, { headers: { "content-type": "application/pdf" } });
    }
    if (url.startsWith("https://api.anthropic.com/")) {
      return Response.json({
        id: `msg_${seen.length}`,
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-6",
        content: [{ type: "text", text: 'It says "Disk full".' }],
        stop_reason: "end_turn",
        usage: { input_tokens: 20, output_tokens: 6 },
      });
    }
    if (url.includes("bedrock-runtime.us-east-1.amazonaws.com")) {
      return Response.json({
        output: { message: { role: "assistant", content: [{ text: "1250.50 EUR, due 31 December." }] } },
        stopReason: "end_turn",
        usage: { inputTokens: 30, outputTokens: 9, totalTokens: 39 },
      });
    }
    if (url === "https://api.openai.com/v1/responses") {
      return Response.json({
        id: "resp_1",
        object: "response",
        status: "completed",
        model: "gpt-5-mini",
        output: [
          {
            id: "msg_1",
            type: "message",
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text: '{"total":1250.5,"currency":"EUR","due":"2026-12-31"}' }],
          },
        ],
        usage: { input_tokens: 40, output_tokens: 12 },
      });
    }
    return new Response("not found", { status: 404 });
  }) as typeof fetch;
}

it("the images, documents and structured-output examples run and send what the README says", async () => {
  const examples = examplesUnder("## Images, documents and structured output");
  expect(examples).toHaveLength(3);
  const code = examples.join("\n").replaceAll('from "modelwire"', `from "${join(root, "src/index.ts")}"`);
  const prelude = [
    `const env = { ANTHROPIC_API_KEY: "sk-ant-readme", OPENAI_API_KEY: "sk-readme", AWS_BEARER_TOKEN_BEDROCK: "bedrock-readme" };`,
    `const screenshot = new Blob([new Uint8Array(${JSON.stringify([...PNG])})], { type: "image/png" });`,
  ].join("\n");
  // Imports first (a module's imports may not follow statements), then the prelude, then the rest.
  const lines = code.split("\n");
  const imports = lines.filter((line) => line.startsWith("import "));
  const rest = lines.filter((line) => !line.startsWith("import "));
  mkdirSync(scratch, { recursive: true });
  const file = join(scratch, "readme-parts.ts");
  writeFileSync(file, `${imports.join("\n")}\n${prelude}\n${rest.join("\n")}\nexport {};\n`);

  const seen: Seen[] = [];
  const log = vi.spyOn(console, "log").mockImplementation(() => {});
  vi.stubGlobal("fetch", fakeFetch(seen));
  try {
    await import(file);
    expect(log.mock.calls).toEqual([['It says "Disk full".'], [1250.5]]);
  } finally {
    log.mockRestore();
    vi.unstubAllGlobals();
  }

  const [vision, byUrl, download, toBedrock, toOpenAI] = seen;
  expect(seen.map(({ url }) => new URL(url).host)).toEqual([
    "api.anthropic.com",
    "api.anthropic.com",
    "example.com",
    "bedrock-runtime.us-east-1.amazonaws.com",
    "api.openai.com",
  ]);
  // (The automatic cache mark lands on the last block: not part of what this checks.)
  expect((vision!.body!.messages as { content: unknown[] }[])[0]!.content).toMatchObject([
    { type: "text", text: "What does the error dialog say?" },
    { type: "image", source: { type: "base64", media_type: "image/png", data: b64(PNG) } },
  ]);
  expect((byUrl!.body!.messages as { content: unknown[] }[])[0]!.content[1]).toMatchObject({
    type: "document",
    source: { type: "url", url: "https://example.com/invoice-1042.pdf" },
  });
  expect(download!.body).toBeUndefined();
  const converse = (toBedrock!.body!.messages as { content: Record<string, unknown>[] }[])[0]!.content;
  expect(converse).toContainEqual({
    document: { format: "pdf", name: "invoice-1042", source: { bytes: b64(PDF) } },
  });
  const responses = toOpenAI!.body!;
  expect(responses.text).toMatchObject({ format: { type: "json_schema", name: "invoice", strict: true } });
  expect(JSON.stringify(responses.input)).toContain(`data:application/pdf;base64,${b64(PDF)}`);
});
