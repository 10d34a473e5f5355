import { describe, expect, it } from "vitest";
import { importFields, normalizeHeader } from "@/lib/imports/fields";
import {
  autoMap,
  mappingMemoryKey,
  mappingProblems,
  metadataColumnKey,
  recallMapping,
  rememberMapping,
} from "@/lib/imports/mapping";
import { importResources } from "@/lib/imports/types";

describe("import fields", () => {
  it("each resource names each field once, and no alias points at two fields", () => {
    for (const resource of importResources) {
      const keys = importFields[resource].map((field) => field.key);
      expect(new Set(keys).size).toBe(keys.length);
      const aliases = importFields[resource].flatMap((field) => [
        normalizeHeader(field.key),
        ...field.aliases,
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
      user_id: "user_id",
      "full-name": "metadata.full",
    });
    expect(recallMapping(storage, "open_channels", ["user_id", "full-name"])).toBeNull();
    expect(recallMapping(storage, "users", ["user_id"])).toBeNull();
    expect(mappingMemoryKey("users", ["A b"])).toBe("switchboard:import-mapping:v1:users:ab");
  });

  it("ignore stored targets the resource no longer has, and broken storage", () => {
    const storage = memory();
    storage.setItem(mappingMemoryKey("users", ["a"]), JSON.stringify(["no_such_field"]));
    expect(recallMapping(storage, "users", ["a"])).toEqual({ a: "" });
    storage.setItem(mappingMemoryKey("users", ["b"]), "{not json");
    expect(recallMapping(storage, "users", ["b"])).toBeNull();
  });
});
