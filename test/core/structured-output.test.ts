/** Structured output: a response format prepared once, and the answer read back into `Response.object`. */

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type Response, StructuredOutputError, ValidationError } from "../../src/index.ts";
import { prepareResponseFormat, readStructuredOutput } from "../../src/protocols/index.ts";
import { FakeProvider } from "../../src/testing.ts";

const answer = (content: string, extra: Partial<Response> = {}): Response => ({
  message: { role: "assistant", content, toolCalls: [], toolResults: [], synthetic: false },
  usage: {},
  stopReason: "stop",
  model: "m",
  provider: "p",
  ...extra,
});

const Person = z.object({ name: z.string(), age: z.number().int() });

describe("prepareResponseFormat", () => {
  it("turns a zod schema into JSON Schema and keeps it to validate; names and strictness default", () => {
    const prepared = prepareResponseFormat({ type: "json_schema", schema: Person });
    expect(prepared).toMatchObject({
      type: "json_schema",
      name: "output",
      strict: true,
      schema: { type: "object", properties: { name: { type: "string" }, age: { type: "integer" } } },
    });
    expect(prepared && "validator" in prepared && prepared.validator).toBe(Person);
    expect(prepareResponseFormat({ type: "json" })).toEqual({ type: "json" });
    expect(prepareResponseFormat(undefined)).toBeUndefined();
  });

  it("refuses a schema that is not an object schema, and a bad name, naming the field", () => {
    expect(() => prepareResponseFormat({ type: "json_schema", schema: { type: "array" } })).toThrow(
      ValidationError,
    );
    expect(() => prepareResponseFormat({ type: "json_schema", schema: { type: "array" } })).toThrow(
      /responseFormat\.schema\.type/,
    );
    expect(() =>
      prepareResponseFormat({ type: "json_schema", schema: { type: "object" }, name: "a b" }),
    ).toThrow(/responseFormat\.name/);
  });
});

describe("readStructuredOutput", () => {
  it("parses the text into object, validated by the Standard Schema", async () => {
    const format = prepareResponseFormat({ type: "json_schema", schema: Person });
    expect((await readStructuredOutput(answer('{"name":"Ada","age":36}'), format)).object).toEqual({
      name: "Ada",
      age: 36,
    });
    // A model that fenced its JSON anyway.
    expect(
      (await readStructuredOutput(answer('```json\n{"name":"Ada","age":36}\n```'), format)).object,
    ).toEqual({
      name: "Ada",
      age: 36,
    });
  });

  it("a mismatch is a StructuredOutputError naming the path, keeping the raw text", async () => {
    const format = prepareResponseFormat({ type: "json_schema", schema: Person });
    const error = await readStructuredOutput(answer('{"name":"Ada","age":"old"}'), format).catch(
      (caught: unknown) => caught,
    );
    expect(StructuredOutputError.is(error)).toBe(true);
    expect((error as StructuredOutputError).issues[0]).toMatchObject({ path: "age" });
    expect((error as StructuredOutputError).response.message.content).toBe('{"name":"Ada","age":"old"}');
    const notJson = await readStructuredOutput(
      answer("Sure! Here it is:", { stopReason: "length" }),
      format,
    ).catch((caught: unknown) => caught);
    expect((notJson as Error).message).toMatch(/not JSON \(the answer was cut at the output limit\)/);
  });

  it("a refusal carries no object and is no error", async () => {
    const format = prepareResponseFormat({ type: "json" });
    const refused = await readStructuredOutput(
      answer("", { stopReason: "content-filter", refusal: "I can't help with that." }),
      format,
    );
    expect(refused.object).toBeUndefined();
    expect(refused.refusal).toBe("I can't help with that.");
  });

  it("a turn that only calls tools carries no object and is no error; one with text is read", async () => {
    const format = prepareResponseFormat({ type: "json_schema", schema: Person });
    const call = { id: "c1", name: "lookup", arguments: {} };
    const step = answer("", { stopReason: "tool-calls" });
    step.message.toolCalls = [call];
    const read = await readStructuredOutput(step, format);
    expect(read.object).toBeUndefined();
    expect(read).toStrictEqual(step);
    const withText = answer("not json", { stopReason: "tool-calls" });
    withText.message.toolCalls = [call];
    await expect(readStructuredOutput(withText, format)).rejects.toThrow(/not JSON/);
  });

  it("FakeProvider answers with object too, complete and stream, with a zod schema in the call", async () => {
    const fake = new FakeProvider({
      script: [{ text: '{"name":"Ada","age":36}' }, { text: '{"name":"Ada","age":36}' }],
    });
    const options = { responseFormat: { type: "json_schema" as const, schema: Person } };
    expect((await fake.complete([{ role: "user", content: "who" }], undefined, options)).object).toEqual({
      name: "Ada",
      age: 36,
    });
    let done: Response | undefined;
    for await (const event of fake.stream([{ role: "user", content: "who" }], undefined, options))
      if (event.type === "done") done = event.response;
    expect(done?.object).toEqual({ name: "Ada", age: 36 });
    expect(fake.calls[0]!.options.responseFormat).toBe(options.responseFormat);
  });
});
