import { describe, expect, it } from "vitest";
import { commonLook, fitsField, lookOf, valueFit } from "@/lib/imports/column-values";
import { findField, importFields, normalizeHeader } from "@/lib/imports/fields";
import {
  autoMap,
  suggestMapping,
  mappingMemoryKey,
  mappingProblems,
  metadataColumnKey,
  recallMapping,
  rememberMapping,
} from "@/lib/imports/mapping";
import { importResources, type ImportResource } from "@/lib/imports/types";
import { flattenedTable, slackUsers, type ImportFile } from "@/tests/fixtures/imports";

describe("import fields", () => {
  it("each resource names each field once, and no alias points at two fields", () => {
    for (const resource of importResources) {
      const keys = importFields[resource].map((field) => field.key);
      expect(new Set(keys).size).toBe(keys.length);
      const aliases = importFields[resource].flatMap((field) => [
        normalizeHeader(field.key),
        ...field.aliases,
        ...(field.oppositeAliases ?? []),
      ]);
      expect(new Set(aliases).size, resource).toBe(aliases.length);
      for (const field of importFields[resource])
        for (const alias of field.aliases) expect(alias).toBe(normalizeHeader(alias));
    }
  });

  it("normalizeHeader ignores case, spaces, _ , - and .", () => {
    expect(normalizeHeader(" User_ID ")).toBe("userid");
    expect(normalizeHeader("profile-url")).toBe("profileurl");
    expect(normalizeHeader("Is Active")).toBe("isactive");
  });
});

describe("autoMap", () => {
  it("maps by name and alias, ignores the rest", () => {
    expect(autoMap("users", ["ID", "Name", "avatar", "Is-Active", "favourite colour"])).toEqual({
      ID: "user_id",
      Name: "nickname",
      avatar: "profile_url",
      "Is-Active": "is_active",
      "favourite colour": "",
    });
  });

  it("an exact field name wins over an alias, whatever the column order", () => {
    expect(autoMap("users", ["id", "user_id"])).toEqual({ id: "", user_id: "user_id" });
  });

  it("users' metadata columns become metadata items", () => {
    expect(autoMap("users", ["user_id", "metadata.team", "Meta_Region"])).toEqual({
      user_id: "user_id",
      "metadata.team": "metadata.team",
      Meta_Region: "metadata.Region",
    });
    expect(metadataColumnKey("metadata.a,b")).toBe("a,b");
    expect(metadataColumnKey("metal")).toBeNull();
  });

  it("group channels: members, operators and the old id", () => {
    expect(autoMap("group_channels", ["id", "Members", "operators", "URL", "Frozen"])).toEqual({
      id: "source_id",
      Members: "user_ids",
      operators: "operator_ids",
      URL: "channel_url",
      Frozen: "frozen",
    });
  });
});

describe("mappingProblems", () => {
  it("names the required fields without a column and fields chosen twice", () => {
    expect(mappingProblems("users", ["a", "b"], { a: "user_id", b: "" })).toEqual([
      "Choose the column that holds the nickname.",
    ]);
    expect(
      mappingProblems("users", ["a", "b", "c"], { a: "user_id", b: "nickname", c: "nickname" }),
    ).toEqual(['Nickname is chosen for "b" and "c": choose it for one column.']);
    expect(mappingProblems("open_channels", ["n"], { n: "name" })).toEqual([
      "Choose the column that holds the channel URL or the source id: every channel needs one.",
    ]);
    expect(
      mappingProblems("users", ["a", "b", "m"], { a: "user_id", b: "nickname", m: "metadata." }),
    ).toEqual(['Give the metadata key of column "m".']);
  });
});

describe("remembered mappings", () => {
  function memory() {
    const items = new Map<string, string>();
    return {
      getItem: (key: string) => items.get(key) ?? null,
      setItem: (key: string, value: string) => void items.set(key, value),
    };
  }

  it("are keyed by resource and normalized headers, and recalled for the same headers", () => {
    const storage = memory();
    rememberMapping(storage, "users", ["User ID", "Full Name"], {
      "User ID": "user_id",
      "Full Name": "metadata.full",
    });
    expect(recallMapping(storage, "users", ["user_id", "full-name"])).toEqual({
      mapping: { user_id: "user_id", "full-name": "metadata.full" },
      transforms: {},
    });
    expect(recallMapping(storage, "open_channels", ["user_id", "full-name"])).toBeNull();
    expect(recallMapping(storage, "users", ["user_id"])).toBeNull();
    expect(mappingMemoryKey("users", ["A b"])).toBe("switchboard:import-mapping:v1:users:ab");
  });

  it("keep each column's transform, and drop one that no longer fits", () => {
    const storage = memory();
    const columns = ["id", "name", "deleted", "avatar"];
    const transforms = {
      deleted: { invert: true as const },
      avatar: { replace: { pattern: "^http:", replacement: "https:" } },
    };
    rememberMapping(
      storage,
      "users",
      columns,
      { id: "user_id", name: "nickname", deleted: "is_active", avatar: "profile_url" },
      transforms,
    );
    expect(recallMapping(storage, "users", columns)?.transforms).toEqual(transforms);
    storage.setItem(
      mappingMemoryKey("users", ["n"]),
      JSON.stringify([["nickname", { invert: true }]]),
    );
    expect(recallMapping(storage, "users", ["n"])).toEqual({
      mapping: { n: "nickname" },
      transforms: {},
    });
  });

  it("ignore stored targets the resource no longer has, and broken storage", () => {
    const storage = memory();
    storage.setItem(mappingMemoryKey("users", ["a"]), JSON.stringify(["no_such_field"]));
    expect(recallMapping(storage, "users", ["a"])).toEqual({ mapping: { a: "" }, transforms: {} });
    storage.setItem(mappingMemoryKey("users", ["b"]), "{not json");
    expect(recallMapping(storage, "users", ["b"])).toBeNull();
  });
});

/** Each column's values, as the preview worker samples them for the mapping step. */
function samplesOf(file: ImportFile): string[][] {
  return file.columns.map((_, column) =>
    file.rows.map((row) => row[column]!).filter((value) => value.trim() !== ""),
  );
}

function suggest(resource: ImportResource, table: Record<string, string[]>) {
  const columns = Object.keys(table);
  return suggestMapping(resource, columns, Object.values(table));
}

describe("suggestMapping: values, not only names", () => {
  it("a Slack users.json flattened to CSV: the 512 px image is the profile image, never the email, and why", () => {
    const file = flattenedTable(slackUsers());
    expect(file.columns).toEqual(
      expect.arrayContaining(["profile.email", "profile.image_24", "profile.image_512"]),
    );
    const suggestion = suggestMapping("users", file.columns, samplesOf(file));
    expect(
      Object.fromEntries(Object.entries(suggestion.mapping).filter(([, target]) => target)),
    ).toEqual({
      id: "user_id",
      name: "nickname",
      deleted: "is_active",
      "profile.image_512": "profile_url",
    });
    expect(suggestion.transforms).toEqual({ deleted: { invert: true } });
    expect(suggestion.columns["profile.image_512"]).toEqual({
      target: "profile_url",
      reasons: ["name matches", "values look like web addresses"],
    });
    expect(suggestion.columns.deleted).toEqual({
      target: "is_active",
      reasons: [
        '"deleted" means the opposite, so its values are inverted',
        "values are true or false",
      ],
      transform: { invert: true },
    });
    expect(suggestion.columns["profile.email"]).toEqual({
      target: "",
      reasons: [],
      passedOver: {
        target: "profile_url",
        reason: "Its name is like Profile image URL, but its values look like email addresses.",
      },
    });
  });

  it("a column of email addresses never maps to a URL field, even under a URL field's name", () => {
    const emails = ["ann@example.com", "bob@example.org"];
    // By name alone each of these is the profile image.
    expect(autoMap("users", ["user_id", "nickname", "avatar"])).toMatchObject({
      avatar: "profile_url",
    });
    expect(autoMap("users", ["user_id", "nickname", "profile.email"])).toMatchObject({
      "profile.email": "profile_url",
    });
    for (const column of ["avatar", "profile.email", "image"]) {
      const suggestion = suggest("users", {
        user_id: ["a", "b"],
        nickname: ["A", "B"],
        [column]: emails,
      });
      expect(suggestion.mapping[column], column).toBe("");
      expect(suggestion.columns[column]!.passedOver?.target).toBe("profile_url");
    }
    expect(suggest("open_channels", { channel_url: ["abcd"], cover: emails }).mapping.cover).toBe(
      "",
    );
    expect(
      suggest("messages", { channel: ["c1"], ts: ["1700000000"], attachment: emails }).mapping
        .attachment,
    ).toBe("");
  });

  it("JSON objects and lists never map to a scalar field; the data fields take them", () => {
    const objects = ['{"first":"Ann","last":"Archer"}', '{"first":"Bob"}'];
    expect(suggest("users", { id: ["a", "b"], name: objects }).mapping.name).toBe("");
    const slackMessage = {
      channel: ["C024BE91L", "C024BE91L"],
      user: ["U1", "U2"],
      text: ["hello", "a file"],
      ts: ["1700000000.000100", "1700000001.000200"],
      files: ["", '[{"id":"F1","url_private":"https://files.slack.com/F1"}]'],
      attachments: ['[{"fallback":"a link"}]', ""],
      extra: ['{"reactions":[{"name":"wave"}]}', "{}"],
    };
    const suggestion = suggest("messages", slackMessage);
    expect(suggestion.mapping).toMatchObject({
      channel: "channel_url",
      user: "user_id",
      text: "message",
      ts: "timestamp",
      files: "",
      attachments: "",
      extra: "data",
    });
    expect(suggestion.columns.files!.passedOver).toEqual({
      target: "url",
      reason: "Its name is like File URL, but its values are JSON objects or lists.",
    });
    expect(suggestion.columns.extra!.reasons).toEqual([
      "name matches",
      "values are JSON objects or lists",
    ]);
    // Lists of ids are lists, not JSON: ids separated by ; map to a list field.
    expect(
      suggest("group_channels", { channel_url: ["abcd"], members: ["a;b", "c"] }).mapping.members,
    ).toBe("user_ids");
    expect(
      suggest("group_channels", { channel_url: ["abcd"], members: ['{"id":"a"};{"id":"b"}'] })
        .mapping.members,
    ).toBe("");
  });

  it("a column whose values are not channel-like never maps to the channel", () => {
    // Slack's thread_ts is like "thread" by name, but holds times.
    const threads = suggest("messages", {
      user: ["U1"],
      ts: ["1700000000.000100"],
      thread_ts: ["1700000000.000100", "1700000002.000300"],
    });
    expect(threads.mapping.thread_ts).toBe("");
    expect(threads.columns.thread_ts!.passedOver).toEqual({
      target: "channel_url",
      reason: "Its name is like Channel, but its values look like times.",
    });
    for (const values of [
      ["General chat", "Random things"],
      ["https://chat.example/rooms/1"],
      ["ann@example.com"],
      ['{"id":"C1"}'],
    ])
      expect(
        suggest("messages", { room: values, ts: ["1700000000"] }).mapping.room,
        values[0],
      ).toBe("");
    for (const values of [["C024BE91L", "general"], ["1096172382237511803"], ["team-42_x"]])
      expect(
        suggest("messages", { room: values, ts: ["1700000000"] }).mapping.room,
        values[0],
      ).toBe("channel_url");
    expect(
      suggest("open_channels", { url: ["https://chat.example/c/1"], id: ["1"] }).mapping,
    ).toEqual({
      url: "",
      id: "source_id",
    });
  });

  it("true/false columns named for the opposite are mapped inverted", () => {
    expect(
      suggest("users", { uid: ["a"], nick: ["A"], is_deleted: ["true", "false"] }),
    ).toMatchObject({
      mapping: { is_deleted: "is_active" },
      transforms: { is_deleted: { invert: true } },
    });
    expect(suggest("group_channels", { members: ["a"], is_private: ["true"] })).toMatchObject({
      mapping: { is_private: "is_public" },
      transforms: { is_private: { invert: true } },
    });
    // Words that only mean true and false to a person: passed over, saying what they are not.
    expect(
      suggest("users", { uid: ["a"], status: ["x"], active: ["Active", "Inactive"] }).columns
        .active,
    ).toEqual({
      target: "",
      reasons: [],
      passedOver: {
        target: "is_active",
        reason:
          "Its name is like Active, but most of its values are not true or false (yes/no, 1/0).",
      },
    });
    // A column that is not true/false is not a deactivation, whatever its name.
    expect(
      suggest("users", { uid: ["a"], deleted: ["2024-01-01", "2024-02-01"] }).mapping.deleted,
    ).toBe("");
  });

  it("of several image sizes the largest is suggested; values break a tie between alike names", () => {
    const url = ["https://example.com/a.png"];
    expect(
      suggest("users", { "avatar-24": url, "avatar-1024": url, "avatar-72": url }).mapping,
    ).toEqual({ "avatar-24": "", "avatar-1024": "profile_url", "avatar-72": "" });
  });
});

describe("valueFit: a chosen field's warning, with examples", () => {
  const field = (resource: ImportResource, key: string) => findField(resource, key)!;

  it("names what the values are, how many of those read, and up to three of them", () => {
    expect(
      valueFit(field("users", "profile_url"), [
        "https://example.com/a.png",
        "not a url",
        "htp://broken",
        "C:\\photos\\ann.png",
        "ftp://files.example/a.png",
      ]),
    ).toEqual({
      read: 5,
      fitting: 1,
      examples: ["not a url", "htp://broken", "C:\\photos\\ann.png"],
      message:
        'Not web addresses (http:// or https://): 4 of the 5 values read, such as "not a url", "htp://broken", "C:\\photos\\ann.png".',
    });
    expect(
      valueFit(field("users", "profile_url"), ["ann@example.com", "bob@example.com"])?.message,
    ).toBe(
      'Email addresses, not web addresses (http:// or https://): all 2 values read, such as "ann@example.com", "bob@example.com".',
    );
    expect(valueFit(field("users", "nickname"), ['{"a":1}'])?.message).toBe(
      'JSON objects or lists, not plain values: the one value read, such as "{"a":1}".',
    );
    expect(valueFit(field("users", "is_active"), ["yes", "no", "maybe"])?.message).toBe(
      'Not true or false (yes/no, 1/0): 1 of the 3 values read, such as "maybe".',
    );
    expect(valueFit(field("users", "profile_url"), ["https://example.com/a.png", ""])).toBeNull();
    expect(valueFit(field("users", "profile_url"), [])).toBeNull();
  });

  it("reads the values as the column's transform leaves them", () => {
    expect(valueFit(field("users", "profile_url"), ["http//cdn.example/a.png"])).not.toBeNull();
    expect(
      valueFit(field("users", "profile_url"), ["http//cdn.example/a.png"], {
        replace: { pattern: "^http//", replacement: "https://" },
      }),
    ).toBeNull();
    // 86,400,000 ms is a day after 1970; as seconds it would be the year 4707.
    expect(fitsField(field("messages", "timestamp"), "86400000", { unit: "milliseconds" })).toBe(
      true,
    );
    expect(fitsField(field("messages", "timestamp"), "2024-03-01", { unit: "seconds" })).toBe(
      false,
    );
  });

  it("looks: email, web address, JSON, true/false, time, number, word, text", () => {
    expect(
      [
        "ann@example.com",
        "https://a.example/x",
        "[1,2]",
        "FALSE",
        "1700000000.000100",
        "2024-03-01T09:30:00Z",
        "42",
        "C024BE91L",
        "two words",
        "{not json",
      ].map(lookOf),
    ).toEqual([
      "email",
      "web-address",
      "json",
      "boolean",
      "time",
      "time",
      "number",
      "word",
      "text",
      "text",
    ]);
    expect(commonLook(["a@b.co", "c@d.io", "e@f.de", "g@h.fr", "x"])).toBe("email");
    expect(commonLook(["a@b.co", "x", "y"])).toBeNull();
  });
});
