/**
 * Right and wrong answers to the example suite (examples/eval/suite.ts), for the fakes that stand in for
 * routes in the eval tests: a fake provider's step and the CLI test's fake OpenAI-compatible server.
 */

/** Which example task a conversation is, from its first user message. */
export function exampleTaskOf(prompt: string): "arithmetic" | "capital" | "json-person" | "weather-tool" {
  if (prompt.includes("17 × 23")) return "arithmetic";
  if (prompt.includes("capital of Australia")) return "capital";
  if (prompt.includes("Ada Lovelace")) return "json-person";
  if (prompt.includes("weather tool")) return "weather-tool";
  throw new Error(`not an example task: ${prompt}`);
}

/** The final answer to an example task: right or wrong. */
export function exampleAnswer(task: ReturnType<typeof exampleTaskOf>, right: boolean): string {
  switch (task) {
    case "arithmetic":
      return right ? "17 × 23 = 391, so \\boxed{391}" : "17 × 23 = 381, so \\boxed{381}";
    case "capital":
      return right ? "Canberra" : "Sydney";
    case "json-person":
      return right
        ? '```json\n{"name": "Ada Lovelace", "born": 1815}\n```'
        : '{"name": "Ada Lovelace", "born": "1815"}';
    case "weather-tool":
      return right ? "It is 12 °C in Oslo, with light rain." : "It is about 15 degrees in Oslo.";
  }
}

/** FNV-1a of a string: a per-run seed from the route and the run's session id. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
