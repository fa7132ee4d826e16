/**
 * A small eval suite: one task per kind of checker (`\boxed{}` equality, exact match, a JSON Schema, a
 * function over a tool-using run). It names no provider, so the same tasks run on any route:
 *
 *     npx modelwire eval examples/eval/suite.ts --config routes.json --route claude --route local-vllm --samples 5
 *
 * The tests run it on `FakeProvider` (test/eval/run-eval.test.ts) and through the CLI against a local fake
 * server (test/eval/cli.test.ts).
 */
import type { EvalSuite } from "modelwire/eval";

/** The tool of the `weather` task: a fixed forecast, so the checker knows what a right answer says. */
const weather = {
  name: "weather",
  description: "The current weather in a city.",
  parameters: {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
  },
  execute: ({ city }: Record<string, unknown>) => `${String(city)}: 12 °C, light rain`,
};

const suite: EvalSuite = {
  name: "modelwire-example",
  callOptions: { maxTokens: 512, temperature: 0 },
  tasks: [
    {
      id: "arithmetic",
      messages: [{ role: "user", content: "What is 17 × 23? Give the final answer as \\boxed{n}." }],
      check: { boxed: "391" },
    },
    {
      id: "capital",
      messages: [
        { role: "system", content: "Answer with the name only, no punctuation." },
        { role: "user", content: "What is the capital of Australia?" },
      ],
      check: { exact: "Canberra", ignoreCase: true },
    },
    {
      id: "json-person",
      messages: [
        {
          role: "user",
          content:
            'Reply with only a JSON object {"name": string, "born": integer} for Ada Lovelace, nothing else.',
        },
      ],
      check: {
        jsonSchema: {
          type: "object",
          required: ["name", "born"],
          properties: { name: { type: "string", pattern: "Ada" }, born: { type: "integer", const: 1815 } },
          additionalProperties: false,
        },
      },
    },
    {
      id: "weather-tool",
      messages: [
        { role: "user", content: "Use the weather tool: what is the temperature in Oslo right now?" },
      ],
      tools: [weather],
      maxSteps: 4,
      // Right only if the tool ran and the answer quotes its figure.
      check: ({ text, messages }) => {
        const called = messages.some((message) => message.role === "tool");
        const quoted = /\b12\s*°?\s*C\b/.test(text);
        return called && quoted
          ? { pass: true }
          : { pass: false, detail: called ? "the answer does not quote 12 °C" : "the tool was not called" };
      },
    },
  ],
};

export default suite;
