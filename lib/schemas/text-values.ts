import { z } from "zod";

/**
 * Query strings and multipart fields carry every value as text. These read the text
 * forms the platform accepts ("true" / "false", decimal digits) and leave anything else
 * as it came, so the wrapped schema reports it as the wrong type (400100).
 */
export function textBoolean() {
  return z.preprocess(
    (value) => (value === "true" ? true : value === "false" ? false : value),
    z.boolean(),
  );
}

/**
 * A boolean in a query string, in any letter case: the platform's Python SDK sends `True` and
 * `False`, and the platform reads them. Anything else is left for the schema to refuse (400100).
 */
export function queryBoolean() {
  return z.preprocess((value) => {
    const text = typeof value === "string" ? value.toLowerCase() : value;
    return text === "true" ? true : text === "false" ? false : value;
  }, z.boolean());
}

export function textInteger<S extends z.ZodType>(schema: S) {
  return z.preprocess(
    (value) => (typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : value),
    schema,
  );
}

// U+0000 (PostgreSQL text refuses it) and UTF-16 halves without their pair (they cannot be
// encoded as UTF-8, so they would be stored as U+FFFD and two different ids would collide).
const unstorable = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether a string can be stored and read back as it is: no NUL, no unpaired surrogate. */
export function isStorableText(value: string): boolean {
  return !unstorable.test(value);
}

export const unstorableTextMessage = "must not contain NUL characters or unpaired surrogates.";

/** The first string in a parsed JSON value (keys included) that cannot be stored, if any. */
export function findUnstorableText(value: unknown, depth = 0): string | undefined {
  if (typeof value === "string") return isStorableText(value) ? undefined : value;
  if (value === null || typeof value !== "object" || depth > 64) return undefined;
  const entries = Array.isArray(value)
    ? value.map((item) => ["", item] as const)
    : Object.entries(value);
  for (const [key, item] of entries) {
    if (!isStorableText(key)) return key;
    const found = findUnstorableText(item, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A zod string that refuses what cannot be stored (see isStorableText), naming the field. */
export function storableString(field: string) {
  return z.string().refine(isStorableText, { error: `"${field}" ${unstorableTextMessage}` });
}
