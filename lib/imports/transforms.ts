import { RE2JS } from "re2js";
import { z } from "zod";
import { findField, type ColumnMapping } from "./fields";
import type { TimestampUnit } from "./timestamps";
import type { ImportResource } from "./types";

/**
 * What is done to a mapped column's values before they are read: a find and replace with a
 * pattern, then, for a true/false field, the opposite value (Slack's `deleted` is `is_active`
 * turned round), or, for a time, the unit the numbers are in. The wizard's form, the preview
 * worker and the server's re-validation all read these through this module, so a row means
 * the same in the preview, in the upload and on the server.
 *
 * Patterns run on RE2 (re2js: the same engine in the browser and on the server, in time linear
 * in the text), so no pattern can stall the server's re-validation of a million rows.
 */

export const timestampUnits = [
  "seconds",
  "milliseconds",
  "ISO 8601",
] as const satisfies readonly TimestampUnit[];

export const PATTERN_MAX = 500;
export const REPLACEMENT_MAX = 2000;

/** Why a pattern cannot be used, in words for the form; null when it can. */
export function patternProblem(pattern: string): string | null {
  try {
    RE2JS.compile(pattern);
    return null;
  } catch (error) {
    const detail =
      error instanceof Error ? error.message.replace(/^error parsing regexp: /, "") : "";
    return `The pattern cannot be read${detail ? ` (${detail})` : ""}. Lookarounds and back-references are not supported.`;
  }
}

export const findReplaceSchema = z.object({
  pattern: z
    .string()
    .min(1, "Give the pattern to find.")
    .max(PATTERN_MAX, `A pattern holds at most ${PATTERN_MAX} characters.`)
    .superRefine((pattern, context) => {
      const problem = patternProblem(pattern);
      if (problem) context.addIssue({ code: "custom", message: problem });
    }),
  replacement: z
    .string()
    .max(REPLACEMENT_MAX, `A replacement holds at most ${REPLACEMENT_MAX} characters.`),
  ignoreCase: z.boolean().optional(),
});

export const columnTransformSchema = z
  .object({
    replace: findReplaceSchema.optional(),
    /** True/false fields: true is read as false and false as true. */
    invert: z.literal(true).optional(),
    /** Time fields: the unit every value is in, instead of the one each value looks like. */
    unit: z.enum(timestampUnits).optional(),
  })
  .strict();

export type FindReplace = z.infer<typeof findReplaceSchema>;
export type ColumnTransform = z.infer<typeof columnTransformSchema>;

/** Column header -> what is done to its values; columns without a transform are left out. */
export const columnTransformsSchema = z.record(z.string().max(1000), columnTransformSchema);
export type ColumnTransforms = z.infer<typeof columnTransformsSchema>;

export function isEmptyTransform(transform: ColumnTransform | undefined): boolean {
  return !transform || (!transform.replace && !transform.invert && !transform.unit);
}

const compiled = new Map<string, RE2JS>();

function compile(replace: FindReplace): RE2JS {
  const key = `${replace.ignoreCase ? "i" : "-"}${replace.pattern}`;
  let regex = compiled.get(key);
  if (!regex) {
    regex = RE2JS.compile(replace.pattern, replace.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
    // A file has a handful of transforms; the bound only keeps a long session from growing.
    if (compiled.size > 100) compiled.clear();
    compiled.set(key, regex);
  }
  return regex;
}

/**
 * A cell's text after the column's find and replace (every match; `$1`, `$<name>`, `$&` and
 * `$$` as in JavaScript), trimmed again. An empty cell is replaced too, so `^$` fills blanks.
 */
export function transformText(transform: ColumnTransform | undefined, text: string): string {
  if (!transform?.replace) return text;
  return compile(transform.replace).matcher(text).replaceAll(transform.replace.replacement).trim();
}

/** Why the transforms do not fit the mapping, in words for the mapping step and the server. */
export function transformProblems(
  resource: ImportResource,
  columns: readonly string[],
  mapping: ColumnMapping,
  transforms: ColumnTransforms,
): string[] {
  const problems: string[] = [];
  for (const [column, transform] of Object.entries(transforms)) {
    if (!columns.includes(column)) {
      problems.push(`A transform names a column the file does not have: "${column}".`);
      continue;
    }
    const target = mapping[column] ?? "";
    if (target === "" && !isEmptyTransform(transform)) {
      problems.push(`Column "${column}" is ignored, so its transform cannot apply.`);
      continue;
    }
    const kind = findField(resource, target)?.kind;
    if (transform.invert && kind !== "boolean")
      problems.push(
        `Column "${column}": only a true/false field can be inverted, and it fills ${fieldName(resource, target)}.`,
      );
    if (transform.unit && kind !== "timestamp")
      problems.push(
        `Column "${column}": only a time field has a unit, and it fills ${fieldName(resource, target)}.`,
      );
  }
  return problems;
}

function fieldName(resource: ImportResource, target: string): string {
  const field = findField(resource, target);
  return field ? field.label : "a metadata item";
}

/** The transform in a few words, for the mapping step and the preview's column headers. */
export function describeTransform(transform: ColumnTransform | undefined): string[] {
  if (!transform) return [];
  const parts: string[] = [];
  if (transform.replace)
    parts.push(
      `replace /${transform.replace.pattern}/${transform.replace.ignoreCase ? "i" : ""} with "${transform.replace.replacement}"`,
    );
  if (transform.invert) parts.push("inverted");
  if (transform.unit) parts.push(`in ${transform.unit}`);
  return parts;
}

/**
 * The mapping step's transform form: flat values as the inputs hold them, read into a
 * ColumnTransform (empty when nothing is asked). The pattern is checked as the server checks it.
 */
export const transformFormSchema = z
  .object({
    pattern: z.string(),
    replacement: z.string(),
    ignoreCase: z.boolean(),
    invert: z.boolean(),
    unit: z.enum(["", ...timestampUnits]),
  })
  .superRefine((values, context) => {
    if (values.pattern === "" && values.replacement !== "")
      context.addIssue({
        code: "custom",
        path: ["pattern"],
        message: "Give the pattern to find, or clear the replacement.",
      });
    if (values.pattern === "") return;
    const replace = findReplaceSchema.safeParse({
      pattern: values.pattern,
      replacement: values.replacement,
    });
    for (const issue of replace.error?.issues ?? [])
      context.addIssue({ code: "custom", path: issue.path, message: issue.message });
  })
  .transform((values): ColumnTransform => {
    const transform: ColumnTransform = {};
    if (values.pattern !== "")
      transform.replace = {
        pattern: values.pattern,
        replacement: values.replacement,
        ...(values.ignoreCase ? { ignoreCase: true } : {}),
      };
    if (values.invert) transform.invert = true;
    if (values.unit !== "") transform.unit = values.unit;
    return transform;
  });

export type TransformFormValues = z.input<typeof transformFormSchema>;

export function transformFormValues(transform: ColumnTransform | undefined): TransformFormValues {
  return {
    pattern: transform?.replace?.pattern ?? "",
    replacement: transform?.replace?.replacement ?? "",
    ignoreCase: transform?.replace?.ignoreCase ?? false,
    invert: transform?.invert ?? false,
    unit: transform?.unit ?? "",
  };
}
