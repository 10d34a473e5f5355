import { describe, expect, it } from "vitest";
import type { ColumnMapping } from "@/lib/imports/fields";
import { followUpRequests } from "@/lib/imports/jobs/run/requests";
import { prepareRow } from "@/lib/imports/prepare";
import {
  columnTransformSchema,
  patternProblem,
  transformProblems,
  transformText,
  type ColumnTransforms,
} from "@/lib/imports/transforms";
import type { ImportResource } from "@/lib/imports/types";

/** Prepares one row given as { column: value }, each column mapped to the field of its name. */
function prepare(resource: ImportResource, cells: Record<string, string>, mapping?: ColumnMapping) {
  const columns = Object.keys(cells);
  return prepareRow(
    resource,
    columns,
    mapping ?? Object.fromEntries(columns.map((column) => [column, column])),
    Object.values(cells),
    0,
  );
}

function errorsOf(row: ReturnType<typeof prepare>) {
  return row.issues
    .filter((issue) => issue.severity === "error")
    .map(({ field, code }) => ({ field, code }));
}

const ids = (count: number, prefix = "u") =>
  Array.from({ length: count }, (_, at) => `${prefix}${at}`).join(";");

describe("prepareRow: users", () => {
  it("builds the creation body, trims cells, and sets the key", () => {
    const row = prepare("users", {
      user_id: "  ann ",
      nickname: " Ann ",
      profile_url: "",
      issue_access_token: "YES",
    });
    expect(row).toMatchObject({ index: 0, key: "ann", issues: [], followUps: {} });
    expect(row.body).toEqual({
      user_id: "ann",
      nickname: "Ann",
      profile_url: "",
      issue_access_token: true,
    });
    expect(row.values).toEqual(["  ann ", " Ann ", "", "YES"]);
  });

  it("sends an empty profile_url when the file has none (no profile image)", () => {
    expect(prepare("users", { user_id: "a", nickname: "A" }).body).toEqual({
      user_id: "a",
      nickname: "A",
      profile_url: "",
    });
  });

  it("user_id: 80 characters pass, 81 are too long (400110); empty is missing (400105)", () => {
    expect(errorsOf(prepare("users", { user_id: "a".repeat(80), nickname: "A" }))).toEqual([]);
    const long = prepare("users", { user_id: "a".repeat(81), nickname: "A" });
    expect(errorsOf(long)).toEqual([{ field: "user_id", code: 400110 }]);
    expect(long.issues[0]!.message).toBe("User id is 81 characters long; at most 80 are allowed.");
    expect(long.body).toBeNull();
    expect(errorsOf(prepare("users", { user_id: "   ", nickname: "A" }))).toEqual([
      { field: "user_id", code: 400105 },
    ]);
  });

  it("nickname: 80 pass, 81 are too long, empty is missing", () => {
    expect(errorsOf(prepare("users", { user_id: "a", nickname: "n".repeat(80) }))).toEqual([]);
    expect(errorsOf(prepare("users", { user_id: "a", nickname: "n".repeat(81) }))).toEqual([
      { field: "nickname", code: 400110 },
    ]);
    const missing = prepare("users", { user_id: "a", nickname: "" });
    expect(errorsOf(missing)).toEqual([{ field: "nickname", code: 400105 }]);
    expect(missing.issues[0]!.message).toBe("Nickname is required.");
  });

  it("profile_url: 2,048 pass, 2,049 are too long", () => {
    expect(
      errorsOf(prepare("users", { user_id: "a", nickname: "A", profile_url: "h".repeat(2048) })),
    ).toEqual([]);
    expect(
      errorsOf(prepare("users", { user_id: "a", nickname: "A", profile_url: "h".repeat(2049) })),
    ).toEqual([{ field: "profile_url", code: 400110 }]);
  });

  it("profile_url: an address that is not http(s) is a warning, and the row is still sent", () => {
    for (const address of ["https://example.com/a.png", "http://cdn.example/x", "  HTTPS://A.B  "])
      expect(
        prepare("users", { user_id: "a", nickname: "A", profile_url: address }).issues,
      ).toEqual([]);
    for (const address of [
      "not a url",
      "htp://broken",
      "C:\\photos\\ann.png",
      "ftp://files.example/a.png",
      "//cdn.example/a.png",
      "http:/one-slash",
      "https://",
    ]) {
      const row = prepare("users", { user_id: "a", nickname: "A", profile_url: address });
      expect(row.body, address).toMatchObject({ profile_url: address.trim() });
      expect(row.issues, address).toEqual([
        {
          field: "profile_url",
          severity: "warning",
          message: `Profile image URL: "${address.trim()}" is not a web address (http:// or https://). The platform stores it as written, but apps cannot load it.`,
        },
      ]);
    }
  });

  it("metadata.* columns become metadata; empty cells are left out; 5 items pass, 6 do not", () => {
    const five = {
      "metadata.a": "1",
      "metadata.b": "2",
      "metadata.c": "3",
      "metadata.d": "4",
      "metadata.e": "5",
    };
    const row = prepare("users", { user_id: "a", nickname: "A", ...five, "metadata.f": "" });
    expect(row.body?.metadata).toEqual({ a: "1", b: "2", c: "3", d: "4", e: "5" });
    const six = prepare("users", { user_id: "a", nickname: "A", ...five, "metadata.f": "6" });
    expect(errorsOf(six)).toEqual([{ field: "metadata", code: 400111 }]);
    expect(six.issues[0]!.message).toContain("at most 5");
  });

  it("metadata keys with a comma are refused on their column", () => {
    const row = prepare("users", { user_id: "a", nickname: "A", "metadata.a,b": "x" });
    expect(errorsOf(row)).toEqual([{ field: "metadata.a,b", code: 400111 }]);
    expect(row.issues[0]!.message).toBe("Metadata keys must not contain a comma.");
  });

  it("booleans read true/false, yes/no, 1/0 in any case; anything else is a clear error (400100)", () => {
    for (const [text, value] of [
      ["true", true],
      ["No", false],
      ["1", true],
      ["0", false],
      ["YES", true],
      ["false", false],
    ] as const) {
      expect(
        prepare("users", { user_id: "a", nickname: "A", issue_access_token: text }).body
          ?.issue_access_token,
      ).toBe(value);
    }
    const bad = prepare("users", { user_id: "a", nickname: "A", issue_access_token: "maybe" });
    expect(errorsOf(bad)).toEqual([{ field: "issue_access_token", code: 400100 }]);
    expect(bad.issues[0]!.message).toBe(
      'Issue access token must be true or false (yes/no and 1/0 work too), not "maybe".',
    );
  });

  it("is_active=false asks for a deactivation and is not sent in the body", () => {
    const inactive = prepare("users", { user_id: "a", nickname: "A", is_active: "false" });
    expect(inactive.followUps).toEqual({ deactivate: true });
    expect(inactive.body).not.toHaveProperty("is_active");
    expect(prepare("users", { user_id: "a", nickname: "A", is_active: "true" }).followUps).toEqual(
      {},
    );
  });

  it("reports every problem of a row, not only the first", () => {
    const row = prepare("users", { user_id: "a".repeat(81), nickname: "", is_active: "perhaps" });
    expect(
      errorsOf(row)
        .map((issue) => issue.field)
        .sort(),
    ).toEqual(["is_active", "nickname", "user_id"]);
  });

  it("the first of two columns mapped to one field wins; ignored columns are not read", () => {
    const row = prepareRow(
      "users",
      ["id", "login", "note"],
      { id: "user_id", login: "user_id", note: "" },
      ["", "b", "x"],
      3,
    );
    expect(row.key).toBe("b");
    expect(row.index).toBe(3);
  });

  it("missing cells at the end of a short row count as empty", () => {
    expect(
      errorsOf(
        prepareRow(
          "users",
          ["user_id", "nickname"],
          { user_id: "user_id", nickname: "nickname" },
          ["a"],
          0,
        ),
      ),
    ).toEqual([{ field: "nickname", code: 400105 }]);
  });
});

describe("prepareRow: open channels", () => {
  it("channel_url: 3 and 101 characters are refused (400111), 4 and 100 pass", () => {
    expect(errorsOf(prepare("open_channels", { channel_url: "abc" }))).toEqual([
      { field: "channel_url", code: 400111 },
    ]);
    expect(errorsOf(prepare("open_channels", { channel_url: "abcd" }))).toEqual([]);
    expect(errorsOf(prepare("open_channels", { channel_url: "c".repeat(100) }))).toEqual([]);
    const long = prepare("open_channels", { channel_url: "c".repeat(101) });
    expect(errorsOf(long)).toEqual([{ field: "channel_url", code: 400111 }]);
    expect(long.issues[0]!.message).toBe(
      "Channel URL is 101 characters long; it must be 4 to 100.",
    );
  });

  it("channel_url: only letters, digits, _ and -", () => {
    expect(errorsOf(prepare("open_channels", { channel_url: "good_url-1" }))).toEqual([]);
    for (const bad of ["has space", "dot.ted", "slash/url", "ünïcode"]) {
      const row = prepare("open_channels", { channel_url: bad });
      expect(errorsOf(row)).toEqual([{ field: "channel_url", code: 400111 }]);
      expect(row.issues[0]!.message).toBe(
        "Channel URL may contain only letters, digits, underscore and hyphen.",
      );
    }
  });

  it("a channel needs a channel_url or a source id", () => {
    const neither = prepare("open_channels", { name: "General" });
    expect(errorsOf(neither)).toEqual([{ field: "channel_url", code: 400105 }]);
    const bySource = prepare("open_channels", { source_id: "old-42", name: "General" });
    expect(bySource).toMatchObject({
      key: null,
      sourceId: "old-42",
      body: { name: "General" },
      issues: [],
    });
  });

  it("name 191/192, custom_type 128/129, cover_url 2,048/2,049", () => {
    expect(
      errorsOf(
        prepare("open_channels", {
          channel_url: "abcd",
          name: "n".repeat(191),
          custom_type: "t".repeat(128),
          cover_url: "c".repeat(2048),
        }),
      ),
    ).toEqual([]);
    expect(
      errorsOf(prepare("open_channels", { channel_url: "abcd", name: "n".repeat(192) })),
    ).toEqual([{ field: "name", code: 400110 }]);
    expect(
      errorsOf(prepare("open_channels", { channel_url: "abcd", custom_type: "t".repeat(129) })),
    ).toEqual([{ field: "custom_type", code: 400110 }]);
    expect(
      errorsOf(prepare("open_channels", { channel_url: "abcd", cover_url: "c".repeat(2049) })),
    ).toEqual([{ field: "cover_url", code: 400110 }]);
  });

  it("cover_url: an address that is not http(s) is a warning on the cover", () => {
    const row = prepare("open_channels", { channel_url: "abcd", cover_url: "htp://broken" });
    expect(row.body).toMatchObject({ cover_url: "htp://broken" });
    expect(row.issues.map(({ field, severity }) => ({ field, severity }))).toEqual([
      { field: "cover_url", severity: "warning" },
    ]);
  });

  it("operator_ids split on ; or |; 100 pass, 101 do not", () => {
    expect(
      prepare("open_channels", { channel_url: "abcd", operator_ids: " a ; b|c;; " }).body
        ?.operator_ids,
    ).toEqual(["a", "b", "c"]);
    expect(
      errorsOf(prepare("open_channels", { channel_url: "abcd", operator_ids: ids(100) })),
    ).toEqual([]);
    expect(
      errorsOf(prepare("open_channels", { channel_url: "abcd", operator_ids: ids(101) })),
    ).toEqual([{ field: "operator_ids", code: 400111 }]);
  });

  it("frozen=true asks for a freeze; is_ephemeral is a boolean", () => {
    const row = prepare("open_channels", { channel_url: "abcd", frozen: "yes", is_ephemeral: "1" });
    expect(row.followUps).toEqual({ freeze: true });
    expect(row.body).toEqual({ channel_url: "abcd", is_ephemeral: true });
  });

  it("metadata columns are for users only", () => {
    expect(errorsOf(prepare("open_channels", { channel_url: "abcd", "metadata.x": "1" }))).toEqual([
      { field: "metadata.x", code: undefined },
    ]);
  });
});

describe("prepareRow: group channels", () => {
  it("builds the body with members and the key", () => {
    const row = prepare("group_channels", {
      channel_url: "team-1",
      user_ids: "a|b",
      operator_ids: "a",
      is_public: "true",
      access_code: "1234",
      frozen: "true",
    });
    expect(row).toMatchObject({ key: "team-1", issues: [], followUps: { freeze: true } });
    expect(row.body).toEqual({
      channel_url: "team-1",
      user_ids: ["a", "b"],
      operator_ids: ["a"],
      is_public: true,
      access_code: "1234",
    });
  });

  it("members are required (400105)", () => {
    const row = prepare("group_channels", { channel_url: "team-1", user_ids: "" });
    expect(errorsOf(row)).toEqual([{ field: "user_ids", code: 400105 }]);
    expect(row.issues[0]!.message).toBe(
      "Member ids are required: a group channel is created with its members.",
    );
  });

  it("past 100 members: created with the first 100 (operators first), the rest invited, up to the cap", () => {
    expect(
      errorsOf(prepare("group_channels", { channel_url: "team-1", user_ids: ids(100) })),
    ).toEqual([]);
    const normal = prepare("group_channels", { channel_url: "team-1", user_ids: ids(101) });
    expect(errorsOf(normal)).toEqual([{ field: "user_ids", code: 400111 }]);
    expect(normal.issues[0]!.message).toBe(
      "101 member ids, but a group channel holds at most 100 (set Supergroup to true for up to 2,000).",
    );
    const members = ids(250).split(";");
    const supergroup = prepare("group_channels", {
      channel_url: "team-1",
      user_ids: members.join(";"),
      operator_ids: members[200]!,
      is_super: "true",
    });
    expect(errorsOf(supergroup)).toEqual([]);
    const created = supergroup.body!.user_ids as string[];
    expect(created).toHaveLength(100);
    expect(created[0]).toBe(members[200]);
    expect(new Set([...created, ...supergroup.followUps.invite!])).toEqual(new Set(members));
    expect(supergroup.followUps.invite).toHaveLength(150);
    const requests = followUpRequests("group_channels", "team-1", supergroup.followUps);
    expect(
      requests.map((request) => [request.path, (request.body.user_ids as string[]).length]),
    ).toEqual([
      ["/v3/group_channels/team-1/invite", 100],
      ["/v3/group_channels/team-1/invite", 50],
    ]);
    const tooMany = prepare("group_channels", {
      channel_url: "team-1",
      user_ids: ids(2001),
      is_super: "true",
    });
    expect(tooMany.issues[0]!.message).toBe(
      "2,001 member ids, but a supergroup holds at most 2,000.",
    );
  });

  it("is_super with is_distinct is refused; either alone passes", () => {
    const both = prepare("group_channels", {
      channel_url: "team-1",
      user_ids: "a",
      is_super: "true",
      is_distinct: "true",
    });
    expect(errorsOf(both)).toEqual([{ field: "is_super", code: 400111 }]);
    expect(both.issues[0]!.message).toBe(
      "A supergroup cannot be distinct: set Distinct or Supergroup to false.",
    );
    expect(
      errorsOf(
        prepare("group_channels", {
          channel_url: "team-1",
          user_ids: "a",
          is_super: "true",
          is_distinct: "false",
        }),
      ),
    ).toEqual([]);
    expect(
      errorsOf(
        prepare("group_channels", { channel_url: "team-1", user_ids: "a", is_distinct: "true" }),
      ),
    ).toEqual([]);
  });

  it("access_code only on a public channel", () => {
    const closed = prepare("group_channels", {
      channel_url: "team-1",
      user_ids: "a",
      access_code: "1234",
    });
    expect(errorsOf(closed)).toEqual([{ field: "access_code", code: 400111 }]);
    expect(
      errorsOf(
        prepare("group_channels", {
          channel_url: "team-1",
          user_ids: "a",
          access_code: "1234",
          is_public: "no",
        }),
      ),
    ).toEqual([{ field: "access_code", code: 400111 }]);
    expect(
      errorsOf(
        prepare("group_channels", {
          channel_url: "team-1",
          user_ids: "a",
          access_code: "1234",
          is_public: "yes",
        }),
      ),
    ).toEqual([]);
  });

  it("rules across fields are still reported when another field fails", () => {
    const row = prepare("group_channels", {
      channel_url: "ab",
      user_ids: ids(2001),
      is_super: "1",
      is_distinct: "1",
    });
    expect(
      errorsOf(row)
        .map((issue) => issue.field)
        .sort(),
    ).toEqual(["channel_url", "is_super", "user_ids"]);
  });

  it("warns about operators and an inviter outside the members, and members listed twice", () => {
    const row = prepare("group_channels", {
      channel_url: "team-1",
      user_ids: "a;b;a",
      operator_ids: "c",
      inviter_id: "d",
    });
    expect(errorsOf(row)).toEqual([]);
    expect(row.body).not.toBeNull();
    expect(row.issues.map((issue) => [issue.field, issue.severity])).toEqual([
      ["user_ids", "warning"],
      ["operator_ids", "warning"],
      ["inviter_id", "warning"],
    ]);
  });

  it("is deterministic: the same input gives the same row", () => {
    const input = { channel_url: "team-1", user_ids: "a;b", is_super: "1", is_distinct: "1" };
    expect(prepare("group_channels", input)).toEqual(prepare("group_channels", input));
  });
});

describe("prepareRow: value transforms", () => {
  const users = (values: string[], transforms: ColumnTransforms) =>
    prepareRow(
      "users",
      ["id", "name", "deleted", "avatar"],
      { id: "user_id", name: "nickname", deleted: "is_active", avatar: "profile_url" },
      values,
      0,
      transforms,
    );

  it("inverts a true/false column: Slack's deleted=true deactivates the user", () => {
    const inverted = { deleted: { invert: true as const } };
    expect(users(["a", "A", "true", ""], inverted).followUps).toEqual({ deactivate: true });
    expect(users(["a", "A", "false", ""], inverted).followUps).toEqual({});
    expect(users(["a", "A", "true", ""], {}).followUps).toEqual({});
    expect(users(["a", "A", "maybe", ""], inverted).issues).toEqual([
      expect.objectContaining({ field: "is_active", severity: "error", code: 400100 }),
    ]);
  });

  it("finds and replaces with a pattern before the value is read; an empty cell can be filled", () => {
    const fixed = users(["U1", "A", "", "htp://cdn.example/a.png"], {
      id: { replace: { pattern: "^U(\\d+)$", replacement: "slack-$1" } },
      avatar: { replace: { pattern: "^htps?://", replacement: "https://", ignoreCase: true } },
    });
    expect(fixed.issues).toEqual([]);
    expect(fixed.body).toMatchObject({
      user_id: "slack-1",
      profile_url: "https://cdn.example/a.png",
    });
    // The cells are kept as the file has them, for the failures CSV.
    expect(fixed.values).toEqual(["U1", "A", "", "htp://cdn.example/a.png"]);
    const filled = users(["b", "", "", ""], {
      name: { replace: { pattern: "^$", replacement: "Former member" } },
    });
    expect(filled.body).toMatchObject({ nickname: "Former member" });
    // A replacement that empties a required cell leaves it missing.
    expect(
      errorsOf(users(["x", "A", "", ""], { id: { replace: { pattern: ".*", replacement: "" } } })),
    ).toEqual([{ field: "user_id", code: 400105 }]);
  });

  it("reads a time column in the unit chosen, instead of each value's look", () => {
    const message = (ts: string, transforms: ColumnTransforms) =>
      prepareRow(
        "messages",
        ["channel", "from", "text", "ts"],
        { channel: "channel_url", from: "user_id", text: "message", ts: "timestamp" },
        ["general", "ann", "hi", ts],
        0,
        transforms,
      );
    // 86,400,000 looks like seconds (below 10^11); in milliseconds it is 1970-01-02.
    expect(message("86400000", {}).body?.timestamp).toBe(86_400_000_000);
    expect(message("86400000", { ts: { unit: "milliseconds" } }).body?.timestamp).toBe(86_400_000);
    expect(message("1700000000.5", { ts: { unit: "milliseconds" } }).body?.timestamp).toBe(
      1_700_000_001,
    );
    expect(message("2024-03-01T09:30:00Z", { ts: { unit: "seconds" } }).issues[0]).toMatchObject({
      message:
        'Sent at: "2024-03-01T09:30:00Z" is an ISO 8601 date, not a number of seconds since 1970.',
    });
    expect(message("1700000000", { ts: { unit: "ISO 8601" } }).issues[0]).toMatchObject({
      message: 'Sent at: "1700000000" is not an ISO 8601 date such as 2024-03-01T09:30:00Z.',
    });
    expect(message("2024-03-01T09:30:00Z", { ts: { unit: "ISO 8601" } }).body?.timestamp).toBe(
      Date.parse("2024-03-01T09:30:00Z"),
    );
  });

  it("a message type is one of its words, not any property of an object", () => {
    const typed = (type: string) =>
      prepareRow(
        "messages",
        ["channel", "from", "text", "ts", "type"],
        {
          channel: "channel_url",
          from: "user_id",
          text: "message",
          ts: "timestamp",
          type: "message_type",
        },
        ["general", "ann", "hi", "1700000000", type],
        0,
      );
    expect(typed("text").body).toMatchObject({ message_type: "MESG" });
    for (const word of ["constructor", "__proto__", "toString"])
      expect(typed(word).issues[0], word).toMatchObject({ field: "message_type", code: 400100 });
  });
});

describe("transforms: the form's and the server's checks", () => {
  it("a pattern RE2 cannot read is refused in words; lookarounds are not supported", () => {
    expect(
      columnTransformSchema.safeParse({ replace: { pattern: "(a", replacement: "" } }).error
        ?.issues[0]?.message,
    ).toBe(
      "The pattern cannot be read (missing closing ): `(a`). Lookarounds and back-references are not supported.",
    );
    expect(patternProblem("(?=a)b")).toMatch(/^The pattern cannot be read/);
    expect(patternProblem("^(a+)+$")).toBeNull();
    expect(columnTransformSchema.safeParse({ invert: true, extra: 1 }).success).toBe(false);
    expect(columnTransformSchema.safeParse({ unit: "minutes" }).success).toBe(false);
  });

  it("a nested quantifier runs on a long cell without backtracking (RE2)", () => {
    const transform = { replace: { pattern: "^(a+)+$", replacement: "x" } };
    expect(transformText(transform, `${"a".repeat(50_000)}b`)).toHaveLength(50_001);
  });

  it("each transform must fit its column's field", () => {
    const columns = ["id", "name", "deleted", "when"];
    const mapping = { id: "user_id", name: "nickname", deleted: "is_active", when: "" };
    expect(transformProblems("users", columns, mapping, { deleted: { invert: true } })).toEqual([]);
    expect(
      transformProblems("users", columns, mapping, {
        name: { invert: true },
        id: { unit: "seconds" },
        when: { invert: true },
        gone: { invert: true },
      }),
    ).toEqual([
      'Column "name": only a true/false field can be inverted, and it fills Nickname.',
      'Column "id": only a time field has a unit, and it fills User id.',
      'Column "when" is ignored, so its transform cannot apply.',
      'A transform names a column the file does not have: "gone".',
    ]);
  });
});
