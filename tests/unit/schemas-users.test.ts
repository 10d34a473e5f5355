import { describe, expect, it } from "vitest";
import { firstPlatformIssue } from "@/lib/schemas/platform-errors";
import {
  METADATA_MAX_ITEMS,
  NICKNAME_MAX,
  PROFILE_URL_MAX,
  USER_ID_MAX,
  USER_LIST_LIMIT_DEFAULT,
  createUserMultipartSchema,
  createUserSchema,
  listUsersQuerySchema,
  updateUserMetadataSchema,
  updateUserSchema,
} from "@/lib/schemas/users";
import type { z } from "zod";

/** The platform code and field the sandbox would answer for this input. */
function issueOf(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input);
  if (result.success) throw new Error(`expected ${JSON.stringify(input)} to be refused`);
  const { code, field, message } = firstPlatformIssue(result.error, input);
  return { code, field, message };
}

const validUser = { user_id: "ada", nickname: "Ada", profile_url: "" };

describe("createUserSchema", () => {
  it("fills in the defaults and drops unknown fields", () => {
    expect(createUserSchema.parse({ ...validUser, colour: "green" })).toEqual({
      ...validUser,
      issue_access_token: false,
      metadata: {},
      issue_session_token: false,
    });
  });

  it("exports the limits of section 8", () => {
    expect([USER_ID_MAX, NICKNAME_MAX, PROFILE_URL_MAX, METADATA_MAX_ITEMS]).toEqual([
      80, 80, 2048, 5,
    ]);
  });

  it.each([
    ["user_id", USER_ID_MAX],
    ["nickname", NICKNAME_MAX],
    ["profile_url", PROFILE_URL_MAX],
  ])("accepts %s at %i characters and refuses one more with 400110", (field, max) => {
    expect(createUserSchema.safeParse({ ...validUser, [field]: "x".repeat(max) }).success).toBe(
      true,
    );
    expect(issueOf(createUserSchema, { ...validUser, [field]: "x".repeat(max + 1) })).toMatchObject(
      {
        code: 400110,
        field,
      },
    );
  });

  it.each(["user_id", "nickname", "profile_url"])(
    "reports a missing %s as 400105, naming it",
    (field) => {
      const input: Record<string, unknown> = { ...validUser };
      delete input[field];
      expect(issueOf(createUserSchema, input)).toEqual({
        code: 400105,
        field,
        message: `"${field}" is required.`,
      });
    },
  );

  it.each([
    ["user_id", 1],
    ["nickname", null],
    ["profile_url", []],
    ["issue_access_token", "true"],
    ["issue_session_token", 0],
    ["session_token_expires_at", "1900000000000"],
    ["session_token_expires_at", 1_900_000_000_000.5],
    ["metadata", "a"],
  ])("reports %s = %j as the wrong type (400100)", (field, value) => {
    expect(issueOf(createUserSchema, { ...validUser, [field]: value })).toMatchObject({
      code: 400100,
      field,
    });
  });

  it("refuses an empty user_id as invalid (400111)", () => {
    expect(issueOf(createUserSchema, { ...validUser, user_id: "" })).toMatchObject({
      code: 400111,
      field: "user_id",
    });
  });

  it("accepts 13-digit session_token_expires_at only", () => {
    const parse = (value: number) =>
      createUserSchema.safeParse({
        ...validUser,
        issue_session_token: true,
        session_token_expires_at: value,
      });
    expect(parse(1_000_000_000_000).success).toBe(true);
    expect(parse(9_999_999_999_999).success).toBe(true);
    expect(
      issueOf(createUserSchema, { ...validUser, session_token_expires_at: 999_999_999_999 }).code,
    ).toBe(400111);
    expect(
      issueOf(createUserSchema, { ...validUser, session_token_expires_at: 10_000_000_000_000 })
        .code,
    ).toBe(400111);
  });

  describe("metadata", () => {
    const withMetadata = (metadata: unknown) => ({ ...validUser, metadata });

    it("accepts five string items, empty values included", () => {
      const metadata = { a: "1", b: "2", c: "3", d: "4", e: "" };
      expect(createUserSchema.parse(withMetadata(metadata)).metadata).toEqual(metadata);
    });

    it("refuses a sixth item with 400111", () => {
      const issue = issueOf(
        createUserSchema,
        withMetadata({ a: "1", b: "2", c: "3", d: "4", e: "5", f: "6" }),
      );
      expect(issue).toEqual({
        code: 400111,
        field: "metadata",
        message: '"metadata" has too many items: at most 5.',
      });
    });

    it("refuses keys with a comma or empty keys with 400111", () => {
      expect(issueOf(createUserSchema, withMetadata({ "a,b": "1" }))).toMatchObject({
        code: 400111,
        message: '"metadata" keys must not contain a comma.',
      });
      expect(issueOf(createUserSchema, withMetadata({ "": "1" }))).toMatchObject({
        code: 400111,
        message: '"metadata" keys must not be empty.',
      });
    });

    it("stores booleans and whole numbers as the platform's text of them", () => {
      expect(
        createUserSchema.parse(withMetadata({ a: true, b: false, c: 5, d: -1, e: "x" })).metadata,
      ).toEqual({ a: "True", b: "False", c: "5", d: "-1", e: "x" });
    });

    it("refuses other values that are not strings with 400100, naming the item", () => {
      for (const value of [1.5, null, { b: "c" }, ["b"], 2 ** 60]) {
        expect(issueOf(createUserSchema, withMetadata({ a: value }))).toMatchObject({
          code: 400100,
          field: "metadata.a",
        });
      }
      expect(issueOf(createUserSchema, withMetadata(["a"]))).toMatchObject({
        code: 400100,
        field: "metadata",
      });
    });
  });
});

describe("createUserMultipartSchema", () => {
  it("reads booleans and the expiry from text and ignores metadata", () => {
    expect(
      createUserMultipartSchema.parse({
        user_id: "ada",
        nickname: "Ada",
        profile_url: "",
        issue_access_token: "true",
        issue_session_token: "false",
        session_token_expires_at: "1900000000000",
        metadata: '{"a":"1"}',
      }),
    ).toEqual({
      user_id: "ada",
      nickname: "Ada",
      profile_url: "",
      issue_access_token: true,
      issue_session_token: false,
      session_token_expires_at: 1_900_000_000_000,
    });
  });

  it("accepts profile_file instead of profile_url", () => {
    const profileFile = new File([new Uint8Array([0x89, 0x50])], "a.png");
    expect(
      createUserMultipartSchema.parse({ user_id: "a", nickname: "A", profile_file: profileFile })
        .profile_file,
    ).toBe(profileFile);
  });

  it("treats an empty profile_file field as no file", () => {
    expect(
      issueOf(createUserMultipartSchema, { user_id: "a", nickname: "A", profile_file: "" }),
    ).toMatchObject({
      code: 400105,
      field: "profile_url",
    });
  });

  it("requires profile_url or profile_file (400105)", () => {
    expect(issueOf(createUserMultipartSchema, { user_id: "a", nickname: "A" })).toMatchObject({
      code: 400105,
      field: "profile_url",
    });
  });

  it.each([
    ["issue_access_token", "yes"],
    ["issue_session_token", "1"],
    ["session_token_expires_at", "soon"],
    ["profile_file", "not a file"],
  ])("reports %s = %j as the wrong type (400100)", (field, value) => {
    expect(issueOf(createUserMultipartSchema, { ...validUser, [field]: value })).toMatchObject({
      code: 400100,
      field,
    });
  });

  it("applies the same length limits as JSON", () => {
    expect(
      issueOf(createUserMultipartSchema, { ...validUser, user_id: "u".repeat(81) }),
    ).toMatchObject({
      code: 400110,
      field: "user_id",
    });
  });
});

describe("updateUserSchema", () => {
  it("takes is_active, nickname and profile_url, all optional, and the platform's two switches", () => {
    const defaults = { issue_access_token: false, leave_all_when_deactivated: true };
    expect(updateUserSchema.parse({})).toEqual(defaults);
    expect(updateUserSchema.parse({ is_active: false, user_id: "x", metadata: {} })).toEqual({
      ...defaults,
      is_active: false,
    });
  });

  it.each([
    [{ is_active: "false" }, 400100, "is_active"],
    [{ nickname: "n".repeat(81) }, 400110, "nickname"],
    [{ profile_url: "p".repeat(2049) }, 400110, "profile_url"],
    [{ issue_access_token: 1 }, 400100, "issue_access_token"],
    [{ leave_all_when_deactivated: "no" }, 400100, "leave_all_when_deactivated"],
  ])("refuses %j", (input, code, field) => {
    expect(issueOf(updateUserSchema, input)).toMatchObject({ code, field });
  });
});

describe("updateUserMetadataSchema", () => {
  it("requires metadata and applies its rules", () => {
    expect(updateUserMetadataSchema.parse({ metadata: { a: "1" } })).toEqual({
      metadata: { a: "1" },
      upsert: false,
    });
    expect(issueOf(updateUserMetadataSchema, { metadata: {}, upsert: "yes" }).code).toBe(400100);
    expect(issueOf(updateUserMetadataSchema, {})).toMatchObject({
      code: 400105,
      field: "metadata",
    });
    expect(issueOf(updateUserMetadataSchema, { metadata: { "x,y": "1" } }).code).toBe(400111);
  });
});

describe("listUsersQuerySchema", () => {
  it("defaults to ten users from the start", () => {
    expect(listUsersQuerySchema.parse({})).toEqual({
      limit: USER_LIST_LIMIT_DEFAULT,
      active_mode: "activated",
    });
  });

  it("splits user_ids, dropping empty and repeated items", () => {
    expect(listUsersQuerySchema.parse({ user_ids: "a,,b,a,", limit: "100" })).toEqual({
      user_ids: ["a", "b"],
      limit: 100,
      active_mode: "activated",
    });
  });

  it("takes metadatakey and metadatavalues_in only together, and a known active_mode", () => {
    expect(issueOf(listUsersQuerySchema, { metadatakey: "team" })).toMatchObject({
      code: 400105,
      field: "metadatavalues_in",
    });
    expect(issueOf(listUsersQuerySchema, { metadatavalues_in: "a" })).toMatchObject({
      code: 400105,
      field: "metadatakey",
    });
    expect(issueOf(listUsersQuerySchema, { active_mode: "sleeping" }).code).toBe(400111);
  });

  it.each([
    ["0", 400111],
    ["101", 400111],
    ["1.5", 400100],
    ["ten", 400100],
  ])("refuses limit=%s", (limit, code) => {
    expect(issueOf(listUsersQuerySchema, { limit })).toMatchObject({ code, field: "limit" });
  });

  it("refuses more than 250 user_ids", () => {
    const userIds = Array.from({ length: 251 }, (_, i) => `u${i}`);
    expect(
      listUsersQuerySchema.safeParse({ user_ids: userIds.slice(0, 250).join(",") }).success,
    ).toBe(true);
    expect(issueOf(listUsersQuerySchema, { user_ids: userIds.join(",") })).toMatchObject({
      code: 400111,
      field: "user_ids",
    });
  });
});
