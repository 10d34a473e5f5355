import { describe, expect, it } from "vitest";
import { crossRowIssues } from "@/lib/imports/cross-row";
import { autoMap } from "@/lib/imports/mapping";
import { prepareRow } from "@/lib/imports/prepare";
import { detectTimestampUnit, parseTimestamp } from "@/lib/imports/timestamps";
import { messageColumns, messagesMapping } from "@/tests/fixtures/imports";

const columns = messageColumns;
const mapping = autoMap("messages", columns);
const row = (values: string[], index = 0) =>
  prepareRow("messages", columns, mapping, values, index);

describe("message rows", () => {
  it("maps common aliases to the platform's fields", () => {
    expect(mapping).toEqual(messagesMapping);
  });

  it("reads text, file and admin rows into the migration shapes with a derived dedup id", () => {
    const text = row(["general", "text", "alice", "hi", "1700000000", "m1", ""]);
    expect(text.issues).toEqual([]);
    expect(text.key).toBe("general");
    expect(text.body).toMatchObject({
      message_type: "MESG",
      user_id: "alice",
      message: "hi",
      timestamp: 1_700_000_000_000,
    });
    expect(text.body?.dedup_id).toMatch(/^src-/);
    expect(row(["general", "text", "alice", "hi", "1700000000", "m1", ""]).body?.dedup_id).toBe(
      text.body?.dedup_id,
    );

    const file = row([
      "general",
      "file",
      "bob",
      "",
      "2024-03-01T09:30:00Z",
      "",
      "https://files.example/a.png",
    ]);
    expect(file.body).toMatchObject({
      message_type: "FILE",
      url: "https://files.example/a.png",
      timestamp: Date.parse("2024-03-01T09:30:00Z"),
    });
    expect(file.body?.dedup_id).toMatch(/^msg-/);
    expect(file.body).not.toHaveProperty("message");

    const admin = row(["general", "admin", "", "Welcome", "1700000000123", "", ""]);
    expect(admin.body).toMatchObject({
      message_type: "ADMM",
      message: "Welcome",
      timestamp: 1_700_000_000_123,
    });
  });

  it("reports each broken rule beside its cell", () => {
    expect(row(["general", "file", "bob", "", "1700000000", "", ""]).issues).toEqual([
      expect.objectContaining({ field: "url", severity: "error" }),
    ]);
    expect(row(["general", "text", "", "hi", "1700000000", "", ""]).issues).toEqual([
      expect.objectContaining({ field: "user_id", severity: "error" }),
    ]);
    expect(row(["general", "poll", "alice", "hi", "1700000000", "", ""]).issues[0]).toMatchObject({
      field: "message_type",
    });
    expect(row(["general", "text", "alice", "hi", "yesterday", "", ""]).issues[0]).toMatchObject({
      field: "timestamp",
    });
    expect(row(["", "text", "alice", "hi", "1700000000", "", ""]).issues[0]).toMatchObject({
      field: "channel_url",
    });
    expect(
      row(["general", "text", "alice", "x".repeat(5001), "1700000000", "", ""]).issues[0],
    ).toMatchObject({ field: "message" });
  });

  it("finds a dedup id used twice in one channel, not across channels", () => {
    const rows = [
      row(["general", "text", "alice", "hi", "1700000000", "m1", ""], 0),
      row(["random", "text", "alice", "hi", "1700000000", "m1", ""], 1),
      row(["general", "text", "alice", "again", "1700000001", "m1", ""], 2),
    ];
    const issues = crossRowIssues("messages", rows);
    expect([...issues.keys()]).toEqual([2]);
    expect(issues.get(2)![0]).toMatchObject({
      field: "dedup_id",
      message: expect.stringContaining("row 1"),
    });
  });
});

describe("timestamps", () => {
  it("reads milliseconds, seconds and ISO 8601, and names the unit", () => {
    expect(parseTimestamp("1700000000123")).toEqual({
      ms: 1_700_000_000_123,
      unit: "milliseconds",
    });
    expect(parseTimestamp("1700000000.5")).toEqual({ ms: 1_700_000_000_500, unit: "seconds" });
    expect(parseTimestamp("2024-03-01 09:30:00")).toEqual({
      ms: Date.parse("2024-03-01T09:30:00Z"),
      unit: "ISO 8601",
    });
    expect(parseTimestamp("2024-03-01T10:30:00+01:00")).toEqual({
      ms: Date.parse("2024-03-01T09:30:00Z"),
      unit: "ISO 8601",
    });
    expect(parseTimestamp("March 1st")).toHaveProperty("error");
    // A day the month does not have is refused, not rolled over into the next month.
    expect(parseTimestamp("2024-02-30T10:00:00Z")).toEqual({
      error: '"2024-02-30T10:00:00Z" is not a date: there is no day 30 in month 2 of 2024.',
    });
    expect(parseTimestamp("2023-02-29")).toHaveProperty("error");
    expect(parseTimestamp("2024-04-31 09:30")).toHaveProperty("error");
    expect(parseTimestamp("2024-00-10")).toHaveProperty("error");
    expect(parseTimestamp("2024-02-29")).toEqual({ ms: Date.UTC(2024, 1, 29), unit: "ISO 8601" });
    expect(parseTimestamp("2024-12-31T23:59:59Z")).toHaveProperty("ms");
    expect(detectTimestampUnit(["1700000000", "", "1700000001", "2024-03-01"])).toBe("seconds");
    expect(detectTimestampUnit(["x"])).toBeNull();
  });
});
