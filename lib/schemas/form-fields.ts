/**
 * Multipart form fields (and CSV cells) arrive as strings. These helpers turn them into the
 * JSON shapes the shared schemas expect, so one schema validates both kinds of request.
 *
 * A value that cannot be converted is passed on unchanged: the schema then reports it
 * exactly as it would a JSON request with a value of the wrong type (400100).
 */

/** How a field's string values are read. Fields not listed are plain strings. */
export type FormFieldKind = "boolean" | "array" | "object";

export type FormFieldKinds = Record<string, FormFieldKind>;

/**
 * Collects a form's text fields by name. `operator_ids[]` and `operator_ids` are the same
 * field, because clients spell array fields either way.
 */
export function collectFormFields(entries: Iterable<[string, unknown]>): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const [rawName, value] of entries) {
    if (typeof value !== "string") continue;
    const name = rawName.endsWith("[]") ? rawName.slice(0, -2) : rawName;
    (fields[name] ??= []).push(value);
  }
  return fields;
}

/**
 * Builds the input object of a schema from collected form fields:
 * - boolean: exactly `true` or `false`;
 * - array: the field repeated once per item, or one field holding a JSON array;
 * - object: one field holding a JSON object;
 * - anything else: a single string; a repeated scalar field stays an array and so is refused.
 */
export function formFieldsToInput(
  fields: Record<string, string[]>,
  kinds: FormFieldKinds,
): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [name, values] of Object.entries(fields)) {
    const kind = kinds[name];
    const single = values.length === 1 ? values[0] : undefined;
    if (kind === "array") {
      input[name] =
        single !== undefined && single.trimStart().startsWith("[") ? parseJson(single) : values;
    } else if (single === undefined) {
      input[name] = values;
    } else if (kind === "boolean") {
      input[name] = single === "true" ? true : single === "false" ? false : single;
    } else if (kind === "object") {
      input[name] = parseJson(single);
    } else {
      input[name] = single;
    }
  }
  return input;
}

function parseJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
