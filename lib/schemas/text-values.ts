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

export function textInteger<S extends z.ZodType>(schema: S) {
  return z.preprocess(
    (value) => (typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : value),
    schema,
  );
}
