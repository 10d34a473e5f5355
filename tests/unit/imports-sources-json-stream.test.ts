import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonArrayStream, JsonStreamError } from "@/lib/imports/sources/json-stream";

function readAll(text: string, key: string | null, cuts: number[] = []) {
  const items: unknown[] = [];
  const fields: Array<[string, unknown]> = [];
  const stream = new JsonArrayStream(
    {
      onItem: (value, item) => {
        expect(item).toBe(items.length + 1);
        items.push(value);
      },
      onField: (name, value) => fields.push([name, value]),
    },
    key,
  );
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    stream.push(text.slice(from, cut));
    from = cut;
  }
  stream.push(text.slice(from));
  stream.end();
  // fromEntries, as JSON.parse, makes "__proto__" a key of its own.
  return { items, fields: Object.fromEntries(fields) };
}

describe("JsonArrayStream", () => {
  it("reads the items of a top-level array, whatever the chunks", () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue()),
        fc.array(fc.nat()),
        fc.boolean(),
        (values, cuts, indent) => {
          const text = JSON.stringify(values, null, indent ? 2 : undefined);
          const { items } = readAll(
            text,
            null,
            cuts.map((cut) => cut % (text.length + 1)),
          );
          expect(items).toEqual(JSON.parse(text));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("reads the array under a key, and hands over the other keys, whatever the chunks", () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.string().filter((key) => key !== "messages"),
          fc.jsonValue(),
        ),
        fc.array(fc.jsonValue()),
        fc.array(fc.nat()),
        (rest, messages, cuts) => {
          const document = { ...rest, messages, messageCount: messages.length };
          const text = JSON.stringify(document, null, 2);
          const { items, fields } = readAll(
            text,
            "messages",
            cuts.map((cut) => cut % (text.length + 1)),
          );
          const parsed = JSON.parse(text) as typeof document;
          expect(items).toEqual(parsed.messages);
          const { messages: _messages, ...others } = parsed;
          expect(fields).toEqual(others);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keeps strings with escaped quotes, backslashes and brackets whole", () => {
    const values = [{ text: 'a "quoted" ] } , word\\', more: ['\\\\"', "[{"] }, "x\\"];
    const text = JSON.stringify(values);
    for (let cut = 0; cut <= text.length; cut++)
      expect(readAll(text, null, [cut]).items).toEqual(values);
  });

  it("accepts a byte order mark and an empty array", () => {
    expect(readAll("\uFEFF [ ]\n", null).items).toEqual([]);
    expect(readAll('{"messages": []}', "messages").items).toEqual([]);
  });

  it.each([
    ["[1, 2", null, "the JSON ends in the middle of item 2"],
    ['[{"a": 1}, {"a": }]', null, "it is not valid JSON"],
    ['[{"a": 1} {"a": 2}]', null, "it is not valid JSON"],
    ['[{"a": 1}} ]', null, "an item of the JSON array is not followed by ',' or ']' at item 2"],
    ["[1,,2]", null, "the JSON array has an empty item at item 2"],
    ["[1,]", null, "the JSON array has an empty item at item 2"],
    ['{"a": 1}', null, "the file does not hold a JSON array"],
    ["[1] 2", null, "the file has more text after its JSON ends"],
    ['{"messages": {}}', "messages", '"messages" is not a JSON array'],
    ['[{"a": 1}]', "messages", "the file does not hold a JSON object"],
    ['{"guild": {"id": "1"}', "messages", "the JSON ends before it is complete"],
    ['{"gu\\xild": 1, "messages": []}', "messages", "a key of the JSON object is malformed"],
  ])("names what is wrong with %s", (text, key, message) => {
    expect(() => readAll(text, key)).toThrow(JsonStreamError);
    expect(() => readAll(text, key)).toThrow(message);
  });

  it("says which item is broken, after handing over the ones before it", () => {
    const items: unknown[] = [];
    const stream = new JsonArrayStream({ onItem: (value) => items.push(value) });
    let error: unknown;
    try {
      stream.push('[{"ts": "1"}, {"ts": "2"}, {"ts": 3');
      stream.push(", }]");
    } catch (caught) {
      error = caught;
    }
    expect(items).toEqual([{ ts: "1" }, { ts: "2" }]);
    expect(error).toBeInstanceOf(JsonStreamError);
    expect((error as JsonStreamError).item).toBe(3);
  });

  it("stops at an item longer than the limit, rather than holding it all", () => {
    const stream = new JsonArrayStream({ onItem: () => {} }, null, 1000);
    stream.push('[{"text": "short"}, {"text": "');
    expect(() => stream.push("x".repeat(2000))).toThrow("one value is over");
  });
});
