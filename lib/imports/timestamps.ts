/**
 * Message times as old systems write them: milliseconds since 1970 (most APIs), seconds
 * (Unix tools, Slack's `1700000000.123456`), or ISO 8601 text. Turned into the platform's
 * milliseconds; the mapping step shows which unit a column holds.
 */

export type TimestampUnit = "milliseconds" | "seconds" | "ISO 8601";

/** Below this a number is seconds: 10^11 seconds is the year 5138, 10^11 ms is March 1973. */
const SECONDS_BELOW = 1e11;
const ISO_8601 =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

export type ParsedTimestamp = { ms: number; unit: TimestampUnit } | { error: string };

/**
 * `unit`: the unit the column is in, chosen by the administrator (a column of milliseconds
 * from before March 1973 looks like seconds); without it, each value's own look decides.
 */
export function parseTimestamp(raw: string, unit?: TimestampUnit): ParsedTimestamp {
  const text = raw.trim();
  if (unit !== "ISO 8601" && /^\d+(?:\.\d+)?$/.test(text)) {
    const value = Number(text);
    if (!Number.isFinite(value)) return { error: `"${text}" is not a time.` };
    const seconds = unit === undefined ? value < SECONDS_BELOW : unit === "seconds";
    const ms = Math.round(seconds ? value * 1000 : value);
    if (!Number.isSafeInteger(ms)) return { error: `"${text}" is too large to be a time.` };
    return { ms, unit: seconds ? "seconds" : "milliseconds" };
  }
  if (unit === "seconds" || unit === "milliseconds")
    return {
      error: `"${clip(text)}" is ${ISO_8601.test(text) ? "an ISO 8601 date, " : ""}not a number of ${unit} since 1970.`,
    };
  if (ISO_8601.test(text)) {
    // Date.parse rolls a day past the month's end over into the next month (2024-02-30 is
    // March 1st): a date no calendar has is refused, not moved.
    const [year, month, day] = text.slice(0, 10).split("-").map(Number) as [number, number, number];
    const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
    if (month < 1 || month > 12 || day < 1 || day > daysInMonth)
      return {
        error: `"${text}" is not a date: there is no day ${day} in month ${month} of ${year}.`,
      };
    // A time without a zone is read as UTC, not as the browser's local time, so the browser
    // and the server agree on it.
    const zoned =
      /[T ]\d{2}:\d{2}/.test(text) && !/(?:Z|[+-]\d{2}:?\d{2})$/i.test(text)
        ? `${text.replace(" ", "T")}Z`
        : text.replace(" ", "T");
    const ms = Date.parse(zoned);
    if (Number.isNaN(ms) || ms < 0)
      return { error: `"${text}" is not a date the console can read.` };
    return { ms, unit: "ISO 8601" };
  }
  if (unit === "ISO 8601")
    return { error: `"${clip(text)}" is not an ISO 8601 date such as 2024-03-01T09:30:00Z.` };
  return {
    error: `"${clip(text)}" is not a time: use milliseconds or seconds since 1970, or ISO 8601 such as 2024-03-01T09:30:00Z.`,
  };
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** The unit most of a column's examples are in, or null when none of them reads as a time. */
export function detectTimestampUnit(examples: readonly string[]): TimestampUnit | null {
  const counts = new Map<TimestampUnit, number>();
  for (const example of examples) {
    if (example.trim() === "") continue;
    const parsed = parseTimestamp(example);
    if ("unit" in parsed) counts.set(parsed.unit, (counts.get(parsed.unit) ?? 0) + 1);
  }
  let best: TimestampUnit | null = null;
  for (const [unit, count] of counts) if (best === null || count > counts.get(best)!) best = unit;
  return best;
}
