import { isWebAddress } from "@/lib/schemas/web-address";
import type { ImportField } from "./fields";
import { readBoolean, readMessageType, splitIds } from "./prepare";
import { readReactions } from "./reactions";
import { parseTimestamp } from "./timestamps";
import { transformText, type ColumnTransform } from "./transforms";

/**
 * What a column's values look like, read from a sample of them, and whether they fit a field:
 * the mapping never suggests a field the values do not fit (email addresses for an image URL,
 * JSON for a name, sentences for a channel), says which values led to a suggestion, and warns
 * when a chosen field does not fit, with examples. Pure, for the mapping step and its tests.
 */

/** How many non-empty values of each column are read for this (the first ones of the file). */
export const VALUE_SAMPLE_SIZE = 100;

export type ValueLook =
  "json" | "email" | "web-address" | "boolean" | "time" | "number" | "word" | "text";

const EMAIL = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[A-Za-z]{2,}$/;
/** Seconds from 1973 (10^8) to milliseconds in 5138 (10^14): what a time in a number looks like. */
const TIME_NUMBER = /^\d{9,14}(?:\.\d+)?$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]|$)/;

export function isJsonStructure(value: string): boolean {
  const text = value.trim();
  if (!/^[[{]/.test(text)) return false;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === "object";
  } catch {
    return false;
  }
}

/** The most telling look of one non-empty value. */
export function lookOf(value: string): ValueLook {
  const text = value.trim();
  if (isJsonStructure(text)) return "json";
  if (EMAIL.test(text)) return "email";
  if (isWebAddress(text)) return "web-address";
  if (/^(?:true|false|yes|no)$/i.test(text)) return "boolean";
  if (TIME_NUMBER.test(text) || (ISO_DATE.test(text) && "ms" in parseTimestamp(text)))
    return "time";
  if (/^-?\d+(?:\.\d+)?$/.test(text)) return "number";
  return /\s/.test(text) ? "text" : "word";
}

const lookWords: Record<ValueLook, string> = {
  json: "are JSON objects or lists",
  email: "look like email addresses",
  "web-address": "look like web addresses",
  boolean: "are true or false",
  time: "look like times",
  number: "are numbers",
  word: "are single words",
  text: "are text",
};

const lookNouns: Record<ValueLook, string> = {
  json: "JSON objects or lists",
  email: "email addresses",
  "web-address": "web addresses",
  boolean: "true/false values",
  time: "times",
  number: "numbers",
  word: "words",
  text: "text",
};

/** The look most of the values share (at least 80%), or null when they are mixed or there are none. */
export function commonLook(values: readonly string[]): ValueLook | null {
  const counts = new Map<ValueLook, number>();
  for (const value of values) {
    if (value.trim() === "") continue;
    const look = lookOf(value);
    counts.set(look, (counts.get(look) ?? 0) + 1);
  }
  const total = [...counts.values()].reduce((sum, count) => sum + count, 0);
  for (const [look, count] of counts) if (total > 0 && count / total >= 0.8) return look;
  return null;
}

/** "values look like web addresses", for a column whose values share a look. */
export function describeLook(look: ValueLook): string {
  return `values ${lookWords[look]}`;
}

/** Whether one value (after the column's transform) is something the field takes. */
export function fitsField(field: ImportField, value: string, transform?: ColumnTransform): boolean {
  const text = transformText(transform, value.trim());
  if (text === "") return true;
  switch (field.kind) {
    case "boolean":
      return readBoolean(text) !== null;
    case "integer":
      return /^\d+$/.test(text) && Number.isSafeInteger(Number(text));
    case "timestamp":
      return "ms" in parseTimestamp(text, transform?.unit);
    case "message-type":
      return readMessageType(text) !== undefined;
    case "reactions":
      return "reactions" in readReactions(text);
    case "id-list":
      return splitIds(text).every((item) =>
        field.shape === "url-list" ? isWebAddress(item) : !/^[[{]/.test(item),
      );
    case "text":
      break;
  }
  if (field.shape === "free") return true;
  if (field.shape === "url") return isWebAddress(text);
  const look = lookOf(text);
  if (field.shape === "channel")
    // A channel URL or an old system's channel id: one word, or a whole number (Discord's),
    // but not a time such as Slack's thread_ts "1700000000.123456".
    return look === "word" || look === "boolean" || /^\d+$/.test(text);
  return look !== "json";
}

/** What the field takes, in words for "… are not …": the end of a mismatch warning. */
function expected(field: ImportField): string {
  if (field.shape === "url" || field.shape === "url-list")
    return "web addresses (http:// or https://)";
  if (field.shape === "channel") return "channel URLs or ids (one word each, no spaces)";
  switch (field.kind) {
    case "boolean":
      return "true or false (yes/no, 1/0)";
    case "integer":
      return "whole numbers";
    case "timestamp":
      return "times the console can read";
    case "message-type":
      return "message types (MESG, FILE, ADMM, or text, file, admin)";
    case "reactions":
      return "reactions (thumbsup:alice;bob|heart:carol, or a JSON list)";
    case "id-list":
      return "ids separated by ; or |";
    default:
      return "plain values";
  }
}

export type ValueFit = {
  /** Values read (non-empty), and how many of them the field takes. */
  read: number;
  fitting: number;
  /** A few values that do not fit, as written in the file. */
  examples: string[];
  /** What the values are and what the field takes, in words. */
  message: string;
};

/** How well a column's sampled values fit a field; null when every value read fits (or none was read). */
export function valueFit(
  field: ImportField,
  sample: readonly string[],
  transform?: ColumnTransform,
): ValueFit | null {
  const values = sample.filter((value) => value.trim() !== "");
  const misfits = values.filter((value) => !fitsField(field, value, transform));
  if (misfits.length === 0) return null;
  const look = commonLook(misfits);
  const what =
    look && look !== "word" && look !== "text"
      ? `${lookNouns[look]}, not ${expected(field)}`
      : `not ${expected(field)}`;
  const share =
    misfits.length < values.length
      ? `${misfits.length} of the ${values.length} values read`
      : values.length === 1
        ? "the one value read"
        : `all ${values.length} values read`;
  const examples = [...new Set(misfits)].slice(0, 3);
  return {
    read: values.length,
    fitting: values.length - misfits.length,
    examples,
    message: `${what.charAt(0).toUpperCase()}${what.slice(1)}: ${share}, such as ${examples.map((example) => `"${clip(example)}"`).join(", ")}.`,
  };
}

/**
 * Why a column's values do not fit a field, to end "Its name is like …, but": what they look
 * like when that tells ("its values look like email addresses"), else what they are not.
 */
export function misfitWords(field: ImportField, sample: readonly string[]): string {
  const look = commonLook(sample);
  return look && look !== "word" && look !== "text"
    ? `its ${describeLook(look)}`
    : `most of its values are not ${expected(field)}`;
}

/** Whether a column's values are mostly something the field takes: a suggestion needs that. */
export function mostlyFits(
  field: ImportField,
  sample: readonly string[],
  transform?: ColumnTransform,
): boolean {
  const values = sample.filter((value) => value.trim() !== "");
  if (values.length === 0) return true;
  const fitting = values.filter((value) => fitsField(field, value, transform)).length;
  return fitting * 2 >= values.length;
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/**
 * What one value of the file is sent as, after the column's transform: for the transform
 * form's before-and-after, read exactly as the preview and the server read it.
 */
export function sentAs(
  field: ImportField | undefined,
  raw: string,
  transform?: ColumnTransform,
): { text: string; fits: boolean } {
  const text = transformText(transform, raw.trim());
  if (text === "") return { text: "empty (not given)", fits: true };
  if (field?.kind === "boolean") {
    const value = readBoolean(text);
    return value === null
      ? { text: `"${clip(text)}": not true or false`, fits: false }
      : { text: String(transform?.invert ? !value : value), fits: true };
  }
  if (field?.kind === "timestamp") {
    const parsed = parseTimestamp(text, transform?.unit);
    return "ms" in parsed
      ? { text: new Date(parsed.ms).toISOString(), fits: true }
      : { text: parsed.error, fits: false };
  }
  return { text: clip(text), fits: !field || fitsField(field, raw, transform) };
}
