import { describe, expect, it } from "vitest";
import type { z } from "zod";
import {
  CHANNEL_NAME_MAX,
  CHANNEL_URL_MAX,
  CHANNEL_URL_MIN,
  COVER_URL_MAX,
  CUSTOM_TYPE_MAX,
  GROUP_MEMBERS_MAX,
  OPERATORS_MAX,
  SUPERGROUP_MEMBERS_MAX,
  USERS_PER_REQUEST_MAX,
  channelFreezeSchema,
  groupChannelListQuerySchema,
  openChannelListQuerySchema,
  channelUrlSchema,
  groupChannelCreateSchema,
  groupChannelFormFields,
  groupMemberCapacity,
  openChannelCreateSchema,
  openChannelFormFields,
} from "@/lib/schemas/channels";
import { collectFormFields, formFieldsToInput } from "@/lib/schemas/form-fields";
import { MIGRATION_MESSAGES_MAX, migrationSchema } from "@/lib/schemas/messages";
import { firstPlatformIssue } from "@/lib/schemas/platform-errors";

/** The platform code the first problem maps to, or "ok". */
function codeOf(schema: z.ZodType, input: unknown): number | "ok" {
  const result = schema.safeParse(input);
  return result.success ? "ok" : firstPlatformIssue(result.error, input).code;
}

const ids = (count: number, prefix = "u") =>
  Array.from({ length: count }, (_, i) => `${prefix}${i}`);

describe("channelUrlSchema", () => {
  it.each([
    ["a".repeat(CHANNEL_URL_MIN - 1), 400111],
    ["a".repeat(CHANNEL_URL_MIN), "ok"],
    ["a".repeat(CHANNEL_URL_MAX), "ok"],
    ["a".repeat(CHANNEL_URL_MAX + 1), 400111],
    ["Az09_-xy", "ok"],
    ["with space", 400111],
    ["dot.ted", 400111],
    ["slash/es", 400111],
    ["ümlaut", 400111],
    ["", 400111],
  ] as const)("%j -> %s", (value, expected) => {
    expect(codeOf(channelUrlSchema, value)).toBe(expected);
  });

  it("refuses a number as the wrong type", () => {
    expect(codeOf(channelUrlSchema, 1234)).toBe(400100);
  });
});

describe("openChannelCreateSchema", () => {
  it("fills the defaults of section 4.4", () => {
    expect(openChannelCreateSchema.parse({})).toEqual({
      name: "open channel",
      cover_url: "",
      custom_type: "",
      data: "",
      is_ephemeral: false,
      is_dynamic_partitioned: true,
      operator_ids: [],
    });
  });

  it.each([
    [{ name: "n".repeat(CHANNEL_NAME_MAX) }, "ok"],
    [{ name: "n".repeat(CHANNEL_NAME_MAX + 1) }, 400110],
    [{ cover_url: "c".repeat(COVER_URL_MAX) }, "ok"],
    [{ cover_url: "c".repeat(COVER_URL_MAX + 1) }, 400110],
    [{ custom_type: "t".repeat(CUSTOM_TYPE_MAX) }, "ok"],
    [{ custom_type: "t".repeat(CUSTOM_TYPE_MAX + 1) }, 400110],
    [{ operator_ids: ids(OPERATORS_MAX) }, "ok"],
    [{ operator_ids: ids(OPERATORS_MAX + 1) }, 400111],
    [{ operators: ids(OPERATORS_MAX + 1) }, 400111],
    [{ is_ephemeral: "true" }, 400100],
    [{ operator_ids: "alice" }, 400100],
    [{ operator_ids: [1] }, 400100],
    [{ name: null }, 400100],
    [{ channel_url: "bad url" }, 400111],
  ] as const)("%# %j -> %s", (input, expected) => {
    expect(codeOf(openChannelCreateSchema, input)).toBe(expected);
  });

  it("merges the deprecated operators[] into operator_ids, each id once", () => {
    const parsed = openChannelCreateSchema.parse({
      operator_ids: ["a", "b"],
      operators: ["b", "c"],
    });
    expect(parsed.operator_ids).toEqual(["a", "b", "c"]);
    expect(parsed).not.toHaveProperty("operators");
  });

  it("counts operators of both spellings against the cap of 100", () => {
    const input = { operator_ids: ids(60, "a"), operators: ids(41, "b") };
    expect(codeOf(openChannelCreateSchema, input)).toBe(400111);
    expect(codeOf(openChannelCreateSchema, { operator_ids: ids(60), operators: ids(60) })).toBe(
      "ok",
    );
  });

  it("drops unknown fields", () => {
    expect(openChannelCreateSchema.parse({ surprise: 1 })).not.toHaveProperty("surprise");
  });
});

describe("groupChannelCreateSchema", () => {
  it("requires users or user_ids (400105)", () => {
    expect(codeOf(groupChannelCreateSchema, {})).toBe(400105);
    expect(codeOf(groupChannelCreateSchema, { name: "x" })).toBe(400105);
    expect(codeOf(groupChannelCreateSchema, { user_ids: [] })).toBe("ok");
    expect(codeOf(groupChannelCreateSchema, { users: [{ user_id: "a" }] })).toBe("ok");
  });

  it("joins users and user_ids into member_ids, each id once, in order", () => {
    const parsed = groupChannelCreateSchema.parse({
      users: [{ user_id: "b" }, { user_id: "a" }],
      user_ids: ["a", "c"],
    });
    expect(parsed.member_ids).toEqual(["b", "a", "c"]);
  });

  it.each([
    [{ user_ids: ids(USERS_PER_REQUEST_MAX) }, "ok"],
    [{ user_ids: ids(USERS_PER_REQUEST_MAX + 1) }, 400111],
    [{ users: ids(USERS_PER_REQUEST_MAX + 1).map((user_id) => ({ user_id })) }, 400111],
    [{ users: ids(50, "a").map((user_id) => ({ user_id })), user_ids: ids(51, "b") }, 400111],
    [{ users: ids(50).map((user_id) => ({ user_id })), user_ids: ids(100) }, "ok"],
    [{ user_ids: [], operator_ids: ids(OPERATORS_MAX) }, "ok"],
    [{ user_ids: [], operator_ids: ids(OPERATORS_MAX + 1) }, 400111],
    [{ user_ids: [], is_super: true, is_distinct: true }, 400111],
    [{ user_ids: [], is_super: true }, "ok"],
    [{ user_ids: [], access_code: "1234" }, 400111],
    [{ user_ids: [], access_code: "1234", is_public: true }, "ok"],
    [{ user_ids: [], access_code: "" }, "ok"],
    [
      {
        user_ids: [],
        invitation_status: { a: "invited_by_friend", b: "invited_by_non_friend", c: "joined" },
      },
      "ok",
    ],
    [{ user_ids: [], invitation_status: { a: "invited" } }, 400111],
    [{ user_ids: [], invitation_status: ["joined"] }, 400100],
    [
      {
        user_ids: [],
        hidden_status: { a: "hidden_allow_auto_unhide", b: "hidden_prevent_auto_unhide" },
      },
      "ok",
    ],
    [{ user_ids: [], hidden_status: { a: "hidden" } }, 400111],
    [{ user_ids: [], strict: "true" }, 400100],
    [{ user_ids: "a,b" }, 400100],
    [{ users: [{ nickname: "no id" }] }, 400105],
    [{ users: ["a"] }, 400100],
    [{ user_ids: [], name: "n".repeat(CHANNEL_NAME_MAX + 1) }, 400110],
    [{ user_ids: [], channel_url: "abc" }, 400111],
    [{ user_ids: [], block_sdk_user_channel_join: 1 }, 400100],
  ] as const)("%# -> %s", (input, expected) => {
    expect(codeOf(groupChannelCreateSchema, input)).toBe(expected);
  });
});

describe("member capacity", () => {
  it("is 100 for normal and public channels and 2000 for supergroups", () => {
    expect(groupMemberCapacity({ is_super: false })).toBe(GROUP_MEMBERS_MAX);
    expect(groupMemberCapacity({ is_super: true })).toBe(SUPERGROUP_MEMBERS_MAX);
  });

  it("cannot be passed by one creation request, which is why the sandbox checks only the request", () => {
    expect(USERS_PER_REQUEST_MAX).toBeLessThanOrEqual(GROUP_MEMBERS_MAX);
  });
});

describe("channelFreezeSchema and the channel list queries", () => {
  it.each([
    [{ freeze: true }, "ok"],
    [{ freeze: false }, "ok"],
    [{}, 400105],
    [{ freeze: "true" }, 400100],
  ] as const)("freeze %j -> %s", (input, expected) => {
    expect(codeOf(channelFreezeSchema, input)).toBe(expected);
  });

  it.each([
    [{}, "ok"],
    [{ limit: "1" }, "ok"],
    [{ limit: "100" }, "ok"],
    [{ limit: "0" }, 400111],
    [{ limit: "101" }, 400111],
    [{ limit: "ten" }, 400100],
    [{ query_type: "or" }, "ok"],
    [{ query_type: "XOR" }, 400111],
    [{ show_empty: "yes" }, 400100],
  ] as const)("list %j -> %s", (input, expected) => {
    expect(codeOf(groupChannelListQuerySchema, input)).toBe(expected);
  });

  it("reads limit from text, defaults it to 10, and splits comma lists", () => {
    expect(openChannelListQuerySchema.parse({})).toEqual({ limit: 10 });
    expect(
      openChannelListQuerySchema.parse({ limit: "25", token: "abc", channel_urls: "a,,b,a" }),
    ).toEqual({ limit: 25, token: "abc", channel_urls: ["a", "b"] });
    expect(groupChannelListQuerySchema.parse({ query_type: "or" })).toMatchObject({
      query_type: "OR",
      show_empty: false,
      show_member: false,
    });
  });
});

describe("multipart fields", () => {
  const form = (entries: Array<[string, string]>, kinds = groupChannelFormFields) =>
    formFieldsToInput(collectFormFields(entries), kinds);

  it("reads repeated fields, with or without [], as one array", () => {
    expect(
      form([
        ["user_ids", "a"],
        ["user_ids[]", "b"],
      ]).user_ids,
    ).toEqual(["a", "b"]);
    expect(form([["user_ids", "only"]]).user_ids).toEqual(["only"]);
  });

  it("reads one field holding a JSON array or object", () => {
    const input = form([
      ["users", '[{"user_id":"a"}]'],
      ["invitation_status", '{"a":"invited_by_friend"}'],
    ]);
    expect(input).toEqual({
      users: [{ user_id: "a" }],
      invitation_status: { a: "invited_by_friend" },
    });
  });

  it("reads true and false as booleans and leaves other text for the schema to refuse", () => {
    expect(form([["is_ephemeral", "true"]], openChannelFormFields)).toEqual({ is_ephemeral: true });
    expect(form([["strict", "false"]])).toEqual({ strict: false });
    const input = form([["strict", "yes"]]);
    expect(codeOf(groupChannelCreateSchema, { user_ids: [], ...input })).toBe(400100);
  });

  it("leaves unparsable JSON and repeated scalars as they came, so they are refused as the wrong type", () => {
    expect(
      codeOf(
        groupChannelCreateSchema,
        form([
          ["user_ids", "a"],
          ["hidden_status", "{oops"],
        ]),
      ),
    ).toBe(400100);
    expect(
      codeOf(
        groupChannelCreateSchema,
        form([
          ["user_ids", "a"],
          ["name", "x"],
          ["name", "y"],
        ]),
      ),
    ).toBe(400100);
  });

  it("ignores file entries", () => {
    expect(
      collectFormFields([
        ["cover_file", new Blob(["x"])],
        ["name", "n"],
      ]),
    ).toEqual({ name: ["n"] });
  });
});

describe("migrationSchema", () => {
  const message = {
    user_id: "a",
    message_type: "MESG",
    message: "hi",
    timestamp: 1_700_000_000_000,
  };

  it.each([
    [{ messages: [message] }, "ok"],
    [{ messages: [] }, "ok"],
    [{}, 400105],
    [{ messages: {} }, 400100],
    [{ messages: Array.from({ length: MIGRATION_MESSAGES_MAX }, () => message) }, "ok"],
    [{ messages: Array.from({ length: MIGRATION_MESSAGES_MAX + 1 }, () => message) }, 400111],
    [{ messages: [{ ...message, message_type: "TEXT" }] }, 400111],
    [{ messages: [{ ...message, message_type: "FILE" }] }, 400105],
    [{ messages: [{ ...message, message_type: "FILE", url: "https://f/a.png" }] }, "ok"],
    [{ messages: [{ ...message, message_type: "ADMM" }] }, "ok"],
    [{ messages: [{ ...message, message_type: "ADMM", user_id: undefined }] }, "ok"],
    [{ messages: [{ ...message, message_type: "ADMM", message: undefined }] }, 400105],
    [{ messages: [{ ...message, message_type: undefined }] }, 400105],
    [{ messages: [{ ...message, timestamp: "1700000000000" }] }, 400100],
    [{ messages: [{ ...message, timestamp: 1.5 }] }, 400100],
    [{ messages: [{ ...message, timestamp: -1 }] }, 400111],
    [{ messages: [{ ...message, user_id: undefined }] }, 400105],
    [{ messages: [{ ...message, message: "m".repeat(5000) }] }, "ok"],
    [{ messages: [{ ...message, message: "m".repeat(5001) }] }, 400110],
    [{ messages: [{ ...message, custom_type: "t".repeat(CUSTOM_TYPE_MAX + 1) }] }, 400110],
    [{ messages: [{ ...message, dedup_id: 7 }] }, 400100],
    [{ messages: [message], update_read_ts: "yes" }, 400100],
  ] as const)("%# -> %s", (input, expected) => {
    expect(codeOf(migrationSchema, input)).toBe(expected);
  });
});
