/**
 * Conformance on the recorded pydantic-ai Chat Completions cassettes with images, documents and structured
 * output (test/fixtures/README.md, "Image, document and structured-output recordings"): each request is
 * built by `openaiChat().complete()` from a neutral input and compared with the request body hosted OpenAI
 * accepted; each recorded answer is parsed into the expected `Response` (`object` included).
 *
 * Cassettes that start with the GET of the file (`…url_input…`, `…force_download`) are played through
 * `inlineUrlParts` with that GET as its `fetch`: the neutral input names the URL, the caller opts in to
 * downloading it, as Chat Completions takes no file URLs.
 *
 * What pydantic-ai sends that modelwire does not, ignored narrowly by `normalized` (nothing else is):
 * - `n: 1`, `stream: false` (the API's defaults; modelwire leaves them out);
 * - a tool's `description: ""` (modelwire sends no empty description);
 * - an assistant turn's `content: null` beside `tool_calls` (pydantic-ai leaves the key out in some);
 * - a user `content` of one text part, which modelwire sends as that string;
 * - pydantic-ai's own wrapping: a text document inside `-----BEGIN FILE id=… type="text/plain"-----` lines
 *   (modelwire sends the text, as OpenAI documents), and the header text of the user message it moves a
 *   tool result's image to (`This is file bd38f5:`; modelwire's is `[content of the result of tool call …]`),
 *   with the tool message's own text `See file bd38f5` given as the result's text part.
 */
import { describe, expect, it } from "vitest";
import { bytesToBase64 } from "../../../src/core/base64.ts";
import {
  type Content,
  inlineUrlParts,
  type MessageInput,
  openaiChat,
  type Response,
} from "../../../src/index.ts";
import { type FixtureInteraction, loadFixture } from "../../helpers/fixtures.ts";

type Json = Record<string, unknown>;

const CITY_SCHEMA = {
  properties: { city: { type: "string" }, country: { type: "string" } },
  required: ["city", "country"],
  type: "object",
};
const NO_ARGS = { additionalProperties: false, properties: {}, type: "object" };

async function cassette(name: string) {
  const fixture = await loadFixture(`openai-chat/pydantic-ai__test_${name}.yaml`);
  const posts = fixture.interactions.filter((i) => i.request?.method === "POST");
  const get = fixture.interactions.find((i) => i.request?.method === "GET");
  return { posts, get };
}

/** A `fetch` answering the cassette's GET of a file (for `inlineUrlParts`). */
function getFetch(get: FixtureInteraction | undefined): typeof fetch {
  if (!get?.request?.uri) throw new Error("no GET in the cassette");
  const uri = get.request.uri;
  return (async (url: string | URL | Request) => {
    expect(String(url)).toBe(uri);
    return new globalThis.Response(get.body.slice(), {
      status: get.status ?? 200,
      headers: { "content-type": get.headers["content-type"] ?? "" },
    });
  }) as typeof fetch;
}

/** A provider whose `fetch` answers each POST with the next recorded answer and keeps the bodies sent. */
function replay(posts: FixtureInteraction[], model = "gpt-4o") {
  const sent: Json[] = [];
  const provider = openaiChat({
    apiKey: "test",
    model,
    fetch: async (_url, init) => {
      const body = JSON.parse(String(init?.body)) as Json;
      const answer = posts[sent.length];
      sent.push(body);
      if (!answer) throw new Error("more requests than the cassette recorded");
      return new globalThis.Response(JSON.stringify(answer.json), {
        headers: { "content-type": "application/json" },
      });
    },
  });
  return { provider, sent };
}

/** A request body with the differences listed at the top of the file taken out. */
function normalized(body: unknown): Json {
  const copy = JSON.parse(JSON.stringify(body)) as Json;
  if (copy.n === 1) delete copy.n;
  if (copy.stream === false) delete copy.stream;
  for (const tool of (copy.tools ?? []) as Json[]) {
    const fn = tool.function as Json;
    if (fn.description === "") delete fn.description;
  }
  for (const message of copy.messages as Json[]) {
    if (message.role === "assistant" && message.content === null && message.tool_calls)
      delete message.content;
    const content = message.content;
    if (message.role === "user" && Array.isArray(content)) {
      for (const part of content as Json[]) {
        if (part.type !== "text") continue;
        const wrapped =
          /^-----BEGIN FILE id="[^"]+" type="text\/plain"-----\n([\s\S]*)\n-----END FILE id="[^"]+"-----$/.exec(
            part.text as string,
          );
        if (wrapped) part.text = wrapped[1];
      }
      if (content.length === 1 && (content[0] as Json).type === "text")
        message.content = (content[0] as Json).text;
    }
  }
  return copy;
}

function recordedBody(interaction: FixtureInteraction | undefined): Json {
  if (!interaction?.request?.body) throw new Error("no recorded request body");
  return normalized(interaction.request.body);
}

function assistantOf(response: Response): MessageInput {
  return response.message;
}

describe("OpenAI Chat cassettes: images", () => {
  it("image_url_input_force_download: an inlined image URL goes as a data: URL; the answer parses", async () => {
    const { posts, get } = await cassette("image_url_input_force_download");
    const { provider, sent } = replay(posts, "gpt-4.1-nano");
    const url = get?.request?.uri as string;
    const content = await inlineUrlParts(
      [
        { type: "text", text: "What is this vegetable?" },
        { type: "image", url },
      ],
      { fetch: getFetch(get) },
    );
    // The download really is the recorded image, byte for byte.
    expect(content[1]).toStrictEqual({
      type: "image",
      mediaType: "image/jpeg",
      data: bytesToBase64(get!.body),
    });
    const response = await provider.complete([{ role: "user", content }]);
    expect(normalized(sent[0])).toStrictEqual(recordedBody(posts[0]));
    expect(response.message.content).toBe("This vegetable is a potato.");
    expect(response.stopReason).toBe("stop");
    expect(response.usage).toMatchObject({ inputTokens: 515, outputTokens: 6 });
    expect(response.warnings).toBeUndefined();
  });

  it("image_url_tool_response: the tool's image moves to a user message after the tool message, by URL", async () => {
    const { posts } = await cassette("image_url_tool_response");
    const { provider, sent } = replay(posts);
    const tools = [{ name: "get_image", parameters: NO_ARGS }];
    const question: MessageInput = {
      role: "user",
      content: "What food is in the image you can get from the get_image tool?",
    };
    const first = await provider.complete([question], tools, { toolChoice: "auto" });
    expect(normalized(sent[0])).toStrictEqual(recordedBody(posts[0]));
    expect(first.stopReason).toBe("tool-calls");
    const call = first.message.toolCalls[0]!;
    expect(call).toMatchObject({ id: "call_4hrT4QP9jfojtK69vGiFCFjG", name: "get_image", arguments: {} });

    const imageUrl =
      "https://t3.ftcdn.net/jpg/00/85/79/92/360_F_85799278_0BBGV9OAdQDTLnKwAPBCcg1J7QtiieJY.jpg";
    const result: Content = [
      { type: "text", text: "See file bd38f5" },
      { type: "image", url: imageUrl },
    ];
    const second = await provider.complete(
      [question, assistantOf(first), { role: "tool", toolResults: [{ callId: call.id, content: result }] }],
      tools,
      { toolChoice: "auto" },
    );
    const ours = normalized(sent[1]);
    const recorded = recordedBody(posts[1]);
    // The header of the moved parts is each library's own words: compare it, then take it out.
    const oursMoved = (ours.messages as Json[])[3]!.content as Json[];
    const recordedMoved = (recorded.messages as Json[])[3]!.content as Json[];
    expect(oursMoved[0]).toStrictEqual({
      type: "text",
      text: `[content of the result of tool call ${call.id}]`,
    });
    expect(recordedMoved[0]).toStrictEqual({ type: "text", text: "This is file bd38f5:" });
    oursMoved.shift();
    recordedMoved.shift();
    expect(ours).toStrictEqual(recorded);
    expect(second.message.content).toBe("The image shows a potato.");
    expect(second.warnings).toStrictEqual([
      "messages[2].toolResults[0].content[1]: Chat Completions tool messages take text only; the image is sent in a user message after the tool results",
    ]);
  });
});

describe("OpenAI Chat cassettes: documents", () => {
  it("document_url_input: an inlined PDF URL goes as a file part with file_data and filename", async () => {
    const { posts, get } = await cassette("document_url_input");
    const { provider, sent } = replay(posts);
    const url = get?.request?.uri as string;
    const content = await inlineUrlParts(
      [
        { type: "text", text: "What is the main content on this document?" },
        // pydantic-ai named the file by its URL.
        { type: "file", url, filename: url },
      ],
      { fetch: getFetch(get) },
    );
    const response = await provider.complete([{ role: "user", content }]);
    expect(normalized(sent[0])).toStrictEqual(recordedBody(posts[0]));
    expect(response.message.content).toBe(
      'The document contains the text "Dummy PDF file" on its single page.',
    );
  });

  it("document_as_binary_content_input_with_tool: an inline PDF, then a strict tool's call and result", async () => {
    const { posts } = await cassette("document_as_binary_content_input_with_tool");
    const { provider, sent } = replay(posts);
    const recordedPdf = (((posts[0]!.request!.body as Json).messages as Json[])[0]!.content as Json[])[1] as {
      file: { file_data: string };
    };
    const data = recordedPdf.file.file_data.replace(/^data:application\/pdf;base64,/, "");
    const tools = [
      {
        name: "get_upper_case",
        parameters: {
          additionalProperties: false,
          properties: { text: { type: "string" } },
          required: ["text"],
          type: "object",
        },
        strict: true,
      },
    ];
    const question: MessageInput = {
      role: "user",
      content: [
        {
          type: "text",
          text: "What is the main content on this document? Use the get_upper_case tool to get the upper case of the text.",
        },
        { type: "file", mediaType: "application/pdf", data, filename: "filename.pdf" },
      ],
    };
    const first = await provider.complete([question], tools, { toolChoice: "auto" });
    expect(normalized(sent[0])).toStrictEqual(recordedBody(posts[0]));
    const call = first.message.toolCalls[0]!;
    expect(call.arguments).toStrictEqual({ text: "Dummy PDF file" });
    const second = await provider.complete(
      [
        question,
        first.message,
        { role: "tool", toolResults: [{ callId: call.id, content: "DUMMY PDF FILE" }] },
      ],
      tools,
      { toolChoice: "auto" },
    );
    expect(normalized(sent[1])).toStrictEqual(recordedBody(posts[1]));
    expect(second.message.content).toBe('The main content of the document is "DUMMY PDF FILE" in uppercase.');
  });

  it("text_document_url_input: an inlined text/plain file goes as a text part (warned)", async () => {
    const { posts, get } = await cassette("text_document_url_input");
    const { provider, sent } = replay(posts);
    const url = get?.request?.uri as string;
    const content = await inlineUrlParts(
      [
        { type: "text", text: "What is the main content on this document, in one sentence?" },
        { type: "file", url },
      ],
      { fetch: getFetch(get) },
    );
    const response = await provider.complete([{ role: "user", content }]);
    const ours = normalized(sent[0]);
    // The text part holds the downloaded file exactly.
    expect(((ours.messages as Json[])[0]!.content as Json[])[1]).toStrictEqual({
      type: "text",
      text: new TextDecoder().decode(get!.body),
    });
    expect(ours).toStrictEqual(recordedBody(posts[0]));
    expect(response.warnings).toStrictEqual([
      "messages[0].content[1]: the text/plain file is sent as a text part (Chat Completions takes PDF files only, and documents sending a text file's contents as text)",
    ]);
    expect(response.message.content).toMatch(/^The document lists the graphical characters/);
  });
});

describe("OpenAI Chat cassettes: structured output", () => {
  const tools = [{ name: "get_user_country", parameters: NO_ARGS }];
  const question: MessageInput = { role: "user", content: "What is the largest city in the user country?" };

  it("openai_native_output: json_schema → response_format; the tool turn carries no object, the answer does", async () => {
    const { posts } = await cassette("openai_native_output");
    const { provider, sent } = replay(posts);
    const responseFormat = {
      type: "json_schema",
      name: "result",
      strict: false,
      schema: CITY_SCHEMA,
    } as const;
    const first = await provider.complete([question], tools, { toolChoice: "auto", responseFormat });
    expect(normalized(sent[0])).toStrictEqual(recordedBody(posts[0]));
    expect(first.stopReason).toBe("tool-calls");
    expect(first.object).toBeUndefined();
    const call = first.message.toolCalls[0]!;
    const second = await provider.complete(
      [question, first.message, { role: "tool", toolResults: [{ callId: call.id, content: "Mexico" }] }],
      tools,
      { toolChoice: "auto", responseFormat },
    );
    expect(normalized(sent[1])).toStrictEqual(recordedBody(posts[1]));
    expect(second.message.content).toBe('{"city":"Mexico City","country":"Mexico"}');
    expect(second.object).toStrictEqual({ city: "Mexico City", country: "Mexico" });
    expect(second.stopReason).toBe("stop");
  });

  it("openai_prompted_output: { type: 'json' } → response_format json_object, the schema in the system prompt", async () => {
    const { posts } = await cassette("openai_prompted_output");
    const { provider, sent } = replay(posts);
    const system = ((posts[0]!.request!.body as Json).messages as Json[])[0]!.content as string;
    const history: MessageInput[] = [{ role: "system", content: system }, question];
    const first = await provider.complete(history, tools, {
      toolChoice: "auto",
      responseFormat: { type: "json" },
    });
    expect(normalized(sent[0])).toStrictEqual(recordedBody(posts[0]));
    const call = first.message.toolCalls[0]!;
    const second = await provider.complete(
      [...history, first.message, { role: "tool", toolResults: [{ callId: call.id, content: "Mexico" }] }],
      tools,
      { toolChoice: "auto", responseFormat: { type: "json" } },
    );
    expect(normalized(sent[1])).toStrictEqual(recordedBody(posts[1]));
    expect(second.object).toStrictEqual({ city: "Mexico City", country: "Mexico" });
  });
});
