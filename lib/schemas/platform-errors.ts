import type { z } from "zod";

/**
 * How a zod issue maps onto the platform's error codes, so the sandbox answers
 * exactly what the contract says and the import validator can show the same
 * reason the platform would give.
 */
export type PlatformIssue = {
  code: 400100 | 400105 | 400110 | 400111;
  /** Dotted path of the offending property, e.g. `metadata` or `user_ids.3`. */
  field: string;
  message: string;
};

export function toPlatformIssue(issue: z.core.$ZodIssue, input: unknown): PlatformIssue {
  const field = issue.path.map(String).join(".");
  const name = field || "body";
  // Whatever the schema says about a value, a value that is not there is missing.
  if (issue.path.length > 0 && valueAt(input, issue.path) === undefined) {
    return { code: 400105, field, message: `"${name}" is required.` };
  }
  // A value that fits none of a union's shapes: report the shape whose type it has (a file
  // object with a bad url names the url), or, when it has none of their types, the first.
  if (issue.code === "invalid_union" && issue.errors.length > 0) {
    const branch =
      issue.errors.find(
        ([first]) => first && !(first.code === "invalid_type" && first.path.length === 0),
      ) ?? issue.errors[0]!;
    const [inner] = branch;
    if (inner) return toPlatformIssue({ ...inner, path: [...issue.path, ...inner.path] }, input);
  }
  if (issue.code === "invalid_type") {
    return { code: 400100, field, message: `"${name}" must be ${article(issue.expected)}.` };
  }
  // One of a list of strings (an event category, a message type), sent as another type.
  if (
    issue.code === "invalid_value" &&
    issue.values.every((value) => typeof value === "string") &&
    typeof valueAt(input, issue.path) !== "string"
  ) {
    return { code: 400100, field, message: `"${name}" must be a string.` };
  }
  if (issue.code === "too_big" && issue.origin === "string") {
    return {
      code: 400110,
      field,
      message: `"${name}" is too long: at most ${String(issue.maximum)} characters.`,
    };
  }
  if (issue.code === "too_big" && issue.origin === "array") {
    return {
      code: 400111,
      field,
      message: `"${name}" has too many items: at most ${String(issue.maximum)}.`,
    };
  }
  // Our own messages start with the property they are about; zod's own ("Invalid option:
  // expected one of "a"|"b"") may quote values but never name it.
  return {
    code: 400111,
    field,
    message: issue.message.startsWith('"') ? issue.message : `"${name}": ${issue.message}`,
  };
}

/** The first issue, which is what the platform reports. */
export function firstPlatformIssue(error: z.ZodError, input: unknown): PlatformIssue {
  const [issue] = error.issues;
  if (!issue) return { code: 400111, field: "", message: "Invalid request." };
  return toPlatformIssue(issue, input);
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = input;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function article(expected: string): string {
  if (expected === "array") return "an array";
  if (expected === "object" || expected === "record") return "an object";
  if (expected === "int" || expected === "number") return "a number";
  return `a ${expected}`;
}
