/**
 * The curl lines of docs/codex.md's `/v1/responses` block run as written against the deployed entry point
 * (`wrangler.toml`'s demo route, the token of `.dev.vars.example`): each answers 200 in the Responses
 * dialect — a `Response` object, or an event stream ending with `response.completed`.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import doc from "../../docs/codex.md?raw";
import { parseSse } from "./helpers.ts";

/** The `-d '…'` bodies of the curl lines of the first sh block under the endpoint's heading. */
function curlBodies(): { body: Record<string, unknown>; stream: boolean }[] {
  const start = doc.indexOf("## The `/v1/responses` endpoint");
  expect(start).toBeGreaterThan(-1);
  const block = /```sh\n([\s\S]*?)```/.exec(doc.slice(start))![1]!;
  expect(block).toContain("T='authorization: Bearer local-dev-token'");
  return block
    .split("\n")
    .filter((line) => line.startsWith("curl"))
    .map((line) => {
      expect(line).toContain("$W/v1/responses");
      const body = JSON.parse(/-d '([^']*)'/.exec(line)![1]!) as Record<string, unknown>;
      return { body, stream: line.includes(" -N ") };
    });
}

describe("docs/codex.md", () => {
  it("every /v1/responses curl answers as the page says", async () => {
    const bodies = curlBodies();
    expect(bodies).toHaveLength(2);
    for (const { body, stream } of bodies) {
      const response = await exports.default.fetch("http://worker.test/v1/responses", {
        method: "POST",
        headers: { authorization: "Bearer local-dev-token", "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(200);
      if (!stream) {
        const object = (await response.json()) as { object: string; status: string; output: unknown[] };
        expect(object).toMatchObject({ object: "response", status: "completed" });
        expect(object.output.length).toBeGreaterThan(0);
        continue;
      }
      const events = parseSse(await response.text())
        .filter((frame) => frame.event !== undefined)
        .map((frame) => JSON.parse(frame.data) as { type: string });
      expect(events[0]!.type).toBe("response.created");
      expect(events.at(-1)!.type).toBe("response.completed");
    }
  }, 20_000);
});
