/**
 * The recorded Gemini calls of `test/fixtures/google/` (pydantic-ai cassettes), for the Gemini tests: every
 * interaction that is a `generateContent` or `streamGenerateContent` call, with its request and the exact
 * response bytes; every other interaction (OAuth token exchanges, file downloads, file-search store
 * management, OpenAI calls in a mixed cassette) listed in `skipped` with the reason. Node-only (reads files).
 *
 * @module
 */
import { listFixtures, loadFixture } from "../../helpers/fixtures.ts";

/** One recorded Gemini call. */
export interface RecordedCall {
  /** `<fixture path>#<interaction>` */
  name: string;
  path: string;
  index: number;
  /** `streamGenerateContent?alt=sse` (true) or `generateContent` (false). */
  stream: boolean;
  /** Vertex AI (`aiplatform.googleapis.com`) rather than the Gemini API. */
  vertex: boolean;
  /** The model the URL names. */
  model: string;
  status: number;
  /** The request body as recorded (parsed JSON; a raw string body is parsed here). */
  request: Record<string, unknown>;
  /** The exact response bytes. */
  body: Uint8Array;
}

const GENERATE = /\/models\/([^/:]+):(generateContent|streamGenerateContent)/;

async function load(): Promise<{ calls: RecordedCall[]; skipped: string[] }> {
  const calls: RecordedCall[] = [];
  const skipped: string[] = [];
  for (const info of listFixtures("google")) {
    const fixture = await loadFixture(info.path);
    for (const interaction of fixture.interactions) {
      const uri = interaction.request?.uri ?? "";
      const name = `${info.path}#${interaction.index}`;
      const match = GENERATE.exec(uri);
      if (!match) {
        skipped.push(
          `${name}: ${interaction.request?.method ?? "?"} ${new URL(uri).host} is not a generateContent call`,
        );
        continue;
      }
      const raw = interaction.request?.body;
      const request = (typeof raw === "string" ? JSON.parse(raw) : raw) as Record<string, unknown>;
      calls.push({
        name,
        path: info.path,
        index: interaction.index,
        stream: match[2] === "streamGenerateContent",
        vertex: uri.includes("aiplatform.googleapis.com"),
        model: match[1]!,
        status: interaction.status ?? 200,
        request,
        body: interaction.body,
      });
    }
  }
  return { calls, skipped };
}

const loaded = await load();

/** Every recorded Gemini call, in fixture order. */
export const RECORDED_CALLS: readonly RecordedCall[] = loaded.calls;
/** The interactions that are not Gemini calls, each with why it is not tested here. */
export const SKIPPED_INTERACTIONS: readonly string[] = loaded.skipped;

/** The recorded calls of one cassette (by a part of its path), in order. */
export function callsOf(pathPart: string): RecordedCall[] {
  const found = RECORDED_CALLS.filter((call) => call.path.includes(pathPart));
  if (found.length === 0) throw new Error(`no recorded Gemini call in ${pathPart}`);
  return found;
}
