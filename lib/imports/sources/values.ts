/**
 * Reading fields of parsed JSON without trusting their types: an export is written by another
 * system, and a field that is missing or of the wrong type is read as absent, not thrown at.
 * (Plain checks rather than a zod parse per item: an export has millions of items.)
 */

export type Fields = Record<string, unknown>;

export function isObject(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function text(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

/** A string that is not empty after trimming, or null. */
export function filled(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

export function number(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function object(value: unknown): Fields {
  return isObject(value) ? value : {};
}

/** The strings of a list, the rest left out. */
export function strings(value: unknown): string[] {
  return list(value).filter((item): item is string => typeof item === "string");
}

/** Unique values, in first-seen order. */
export function unique<T>(values: Iterable<T>): T[] {
  return [...new Set(values)];
}
