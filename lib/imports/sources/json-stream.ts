import { MAX_ITEM_CHARS } from "./limits";

/**
 * The items of one JSON array, streamed from text that arrives in pieces: the array that is
 * the whole document (`[…]`, a Slack day file or users.json), or the array under one key of
 * the document's object (`{"guild": …, "messages": […]}`, a DiscordChatExporter file, which
 * can be hundreds of MB). The other keys of that object are handed over as parsed values.
 *
 * The scanner only finds where each item starts and ends (tracking strings and nesting); each
 * item is then parsed by the engine's own JSON.parse. That keeps memory to one item and keeps
 * the speed of the native parser: measured against @streamparser/json in docs/benchmarks.md.
 */

export class JsonStreamError extends Error {
  constructor(
    message: string,
    /** The array item where reading stopped (from 1), or null outside the array. */
    readonly item: number | null,
  ) {
    super(message);
  }
}

type Expect =
  | "start"
  | "key-or-end"
  | "key"
  | "colon"
  | "value"
  | "comma-or-end-object"
  | "item-or-end"
  | "item"
  | "comma-or-end-array"
  | "done";

export type JsonArrayHandlers = {
  /** `item` counts from 1. */
  onItem: (value: unknown, item: number) => void;
  /** The object's other keys, in document order (only with `key`). */
  onField?: (key: string, value: unknown) => void;
  /** Called once the array opens, after every key written before it. */
  onArrayStart?: () => void;
};

export class JsonArrayStream {
  private buffer = "";
  private at = 0;
  private expect: Expect = "start";
  /** Inside the object: the key whose value is being read. */
  private currentKey = "";
  /** Where the text being captured (a key, a value, an item) starts in the buffer, or -1. */
  private captureStart = -1;
  private nesting = 0;
  private inString = false;
  private inTarget = false;
  private items = 0;

  /** `key`: read the array under this key of the document's object; without it, the document is the array. */
  constructor(
    private readonly handlers: JsonArrayHandlers,
    private readonly key: string | null = null,
    private readonly maxItemChars = MAX_ITEM_CHARS,
  ) {}

  get itemsRead(): number {
    return this.items;
  }

  push(text: string): void {
    if (this.captureStart >= 0) {
      this.buffer = this.buffer.slice(this.captureStart) + text;
      this.at -= this.captureStart;
      this.captureStart = 0;
    } else {
      this.buffer = text;
      this.at = 0;
    }
    this.scan();
    if (this.captureStart >= 0 && this.buffer.length - this.captureStart > this.maxItemChars)
      this.fail(
        `one value is over ${Math.round(this.maxItemChars / 1024 / 1024)} MB of text, far more than an export holds in one message or person`,
      );
  }

  end(): void {
    if (this.expect !== "done") {
      throw new JsonStreamError(
        this.inTarget || this.expect === "item"
          ? `the JSON ends in the middle of item ${this.items + 1}`
          : "the JSON ends before it is complete",
        this.inTarget ? this.items + 1 : null,
      );
    }
  }

  private fail(what: string): never {
    throw new JsonStreamError(
      this.inTarget ? `${what} at item ${this.items + 1}` : what,
      this.inTarget ? this.items + 1 : null,
    );
  }

  private scan(): void {
    const text = this.buffer;
    while (this.at < text.length) {
      if (this.captureStart >= 0) {
        if (!this.scanCapture(text)) return;
        continue;
      }
      const code = text.charCodeAt(this.at);
      // Whitespace (and a byte order mark at the start) between tokens.
      if (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09 || code === 0xfeff) {
        this.at++;
        continue;
      }
      const char = text[this.at]!;
      switch (this.expect) {
        case "start":
          if (char === "[" && this.key === null) {
            this.openArray();
          } else if (char === "{" && this.key !== null) {
            this.expect = "key-or-end";
          } else {
            this.fail(
              this.key === null
                ? "the file does not hold a JSON array"
                : "the file does not hold a JSON object",
            );
          }
          this.at++;
          break;
        case "key-or-end":
        case "key":
          if (char === "}" && this.expect === "key-or-end") {
            this.expect = "done";
            this.at++;
          } else if (char === '"') {
            this.beginCapture();
          } else this.fail("a key of the JSON object is malformed");
          break;
        case "colon":
          if (char !== ":") this.fail("a key of the JSON object is not followed by ':'");
          this.expect = "value";
          this.at++;
          break;
        case "value":
          if (this.currentKey === this.key && char === "[") {
            this.openArray();
            this.at++;
          } else if (this.currentKey === this.key) {
            this.fail(`"${this.key}" is not a JSON array`);
          } else this.beginCapture();
          break;
        case "comma-or-end-object":
          if (char === ",") this.expect = "key";
          else if (char === "}") this.expect = "done";
          else this.fail("the JSON object has a value that is not followed by ',' or '}'");
          this.at++;
          break;
        case "item-or-end":
        case "item":
          if (char === "]" && this.expect === "item-or-end") {
            this.closeArray();
            this.at++;
          } else if (char === "]" || char === ",") {
            this.fail("the JSON array has an empty item");
          } else this.beginCapture();
          break;
        case "comma-or-end-array":
          if (char === ",") this.expect = "item";
          else if (char === "]") this.closeArray();
          else this.fail("an item of the JSON array is not followed by ',' or ']'");
          this.at++;
          break;
        case "done":
          this.fail("the file has more text after its JSON ends");
      }
    }
  }

  private openArray(): void {
    this.inTarget = true;
    this.expect = "item-or-end";
    this.handlers.onArrayStart?.();
  }

  private closeArray(): void {
    this.inTarget = false;
    this.expect = this.key === null ? "done" : "comma-or-end-object";
  }

  private beginCapture(): void {
    this.captureStart = this.at;
    this.nesting = 0;
    this.inString = false;
  }

  /** Scans the captured key, value or item on; true when it ended, false when more text is needed. */
  private scanCapture(text: string): boolean {
    const isKey = this.expect === "key" || this.expect === "key-or-end";
    const length = text.length;
    // Locals, not fields, in the loop: this is where an export's bytes are spent.
    let at = this.at;
    let nesting = this.nesting;
    let inString = this.inString || (isKey && at === this.captureStart);
    if (isKey && at === this.captureStart) at++;
    for (;;) {
      if (inString) {
        // The closing quote: the next one not escaped by an odd run of backslashes.
        let quote = text.indexOf('"', at);
        while (quote >= 0) {
          let slashes = 0;
          while (text.charCodeAt(quote - 1 - slashes) === 0x5c) slashes++;
          if (slashes % 2 === 0) break;
          quote = text.indexOf('"', quote + 1);
        }
        if (quote < 0) {
          this.at = length;
          this.inString = true;
          this.nesting = nesting;
          return false;
        }
        inString = false;
        at = quote + 1;
        if (isKey) {
          this.at = at;
          this.inString = false;
          this.finishKey(text.slice(this.captureStart, at));
          return true;
        }
      }
      for (; at < length; at++) {
        const code = text.charCodeAt(at);
        if (code === 0x22) {
          inString = true;
          at++;
          break;
        } else if (code === 0x7b || code === 0x5b) {
          nesting++;
        } else if (code === 0x7d || code === 0x5d || code === 0x2c) {
          if (nesting === 0) {
            // ',' or a closing bracket at the value's own level: it ends here.
            this.at = at;
            this.inString = false;
            this.finishValue(text.slice(this.captureStart, at));
            return true;
          }
          if (code !== 0x2c) nesting--;
        }
      }
      if (!inString) {
        this.at = length;
        this.inString = false;
        this.nesting = nesting;
        return false;
      }
    }
  }

  private finishKey(raw: string): void {
    this.captureStart = -1;
    try {
      this.currentKey = JSON.parse(raw) as string;
    } catch {
      this.fail("a key of the JSON object is malformed");
    }
    this.expect = "colon";
  }

  private finishValue(raw: string): void {
    this.captureStart = -1;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      this.fail(`it is not valid JSON (${error instanceof Error ? error.message : "parse error"})`);
    }
    if (this.inTarget) {
      this.items++;
      this.expect = "comma-or-end-array";
      this.handlers.onItem(value, this.items);
    } else {
      this.expect = "comma-or-end-object";
      this.handlers.onField?.(this.currentKey, value);
    }
  }
}
