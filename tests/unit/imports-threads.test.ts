import { describe, expect, it } from "vitest";
import { crossRowIssues } from "@/lib/imports/cross-row";
import { autoMap } from "@/lib/imports/mapping";
import { prepareRow } from "@/lib/imports/prepare";
import { readReactions } from "@/lib/imports/reactions";
import { rowReferences, referenceIssues } from "@/lib/imports/references";
import { threadColumns, threadsMapping } from "@/tests/fixtures/imports";

const row = (values: string[], index = 0) =>
  prepareRow("messages", threadColumns, threadsMapping, values, index);

describe("a reactions cell", () => {
  it("reads the CSV form, keys and users given twice kept once", () => {
    expect(readReactions("thumbsup:alice;bob|heart:carol|thumbsup:bob,dan")).toEqual({
      reactions: [
        { key: "thumbsup", user_ids: ["alice", "bob", "dan"] },
        { key: "heart", user_ids: ["carol"] },
      ],
    });
    expect(readReactions("  ")).toEqual({ reactions: [] });
  });

  it("reads the JSON form of NDJSON records", () => {
    expect(readReactions('[{"key":"+1","user_ids":["alice"," bob "]}]')).toEqual({
      reactions: [{ key: "+1", user_ids: ["alice", "bob"] }],
    });
  });

  it("refuses a malformed cell and a key over the platform's 128 characters, saying why", () => {
    expect(readReactions("thumbsup")).toEqual({
      error: expect.stringMatching(/^"thumbsup" names no users: write reactions as/),
    });
    expect(readReactions(":alice")).toEqual({
      error: expect.stringMatching(/has no reaction key/),
    });
    expect(readReactions("[{")).toEqual({
      error: expect.stringMatching(/not valid JSON/),
    });
    expect(readReactions('[{"key":"x","user_ids":[]}]')).toEqual({
      error: expect.stringMatching(/needs "user_ids"/),
    });
    expect(readReactions(`${"k".repeat(128)}:alice`)).toHaveProperty("reactions");
    expect(readReactions(`${"k".repeat(129)}:alice`)).toEqual({
      error: expect.stringMatching(/is 129 characters long; the platform takes at most 128/),
    });
  });
});

describe("threads in a messages row", () => {
  it("maps parent and reactions columns by their names", () => {
    expect(autoMap("messages", threadColumns)).toEqual(threadsMapping);
  });

  it("a root is migrated with its dedup id in sorted_metaarray; a reply is a send body without timestamp", () => {
    const root = row(["general", "alice", "hi", "1700000000", "m1", "", "heart:bob"]);
    expect(root.issues).toEqual([]);
    expect(root.body).toMatchObject({
      timestamp: 1_700_000_000_000,
      sorted_metaarray: [{ key: "import_dedup_id", value: [root.body!.dedup_id] }],
    });
    expect(root.reactions).toEqual([{ key: "heart", user_ids: ["bob"] }]);
    const reply = row(["general", "bob", "re", "1700000001", "m2", "m1", ""]);
    expect(reply.parentSourceId).toBe("m1");
    expect(reply.body).not.toHaveProperty("timestamp");
    expect(reply.body).toMatchObject({ created_at: 1_700_000_001_000, message: "re" });
  });

  it("refuses a reply to itself and a bad reactions cell beside their cells", () => {
    expect(row(["general", "bob", "re", "1700000001", "m2", "m2", ""]).issues).toEqual([
      expect.objectContaining({ field: "parent_id", severity: "error" }),
    ]);
    const bad = row(["general", "bob", "re", "1700000001", "m3", "", "thumbsup"]);
    expect(bad.body).toBeNull();
    expect(bad.issues).toEqual([expect.objectContaining({ field: "reactions", code: 400100 })]);
  });

  it("names a root in another channel, a reply to a reply, and a root not in the file", () => {
    const prepared = [
      row(["general", "alice", "root", "1700000000", "m1", "", ""], 0),
      row(["general", "bob", "reply", "1700000001", "m2", "m1", ""], 1),
      row(["general", "carol", "reply to reply", "1700000002", "m3", "m2", ""], 2),
      row(["random", "carol", "elsewhere", "1700000003", "m4", "m1", ""], 3),
      row(["general", "carol", "lost", "1700000004", "m5", "m0", ""], 4),
    ];
    const issues = crossRowIssues("messages", prepared, { firstRow: 2 });
    expect(issues.get(1)).toBeUndefined();
    expect(issues.get(2)).toEqual([
      expect.objectContaining({
        field: "parent_id",
        severity: "warning",
        message: expect.stringMatching(/Replies to a reply \(row 3\).*row 2\./),
      }),
    ]);
    expect(issues.get(3)).toEqual([
      expect.objectContaining({
        field: "parent_id",
        severity: "error",
        message: expect.stringMatching(/is in channel "general", not "random"/),
      }),
    ]);
    expect(issues.get(4)).toEqual([
      expect.objectContaining({ field: "parent_id", severity: "warning" }),
    ]);
  });

  it("a reacting user the preview finds nowhere is named beside the reactions cell", () => {
    const prepared = row(["general", "alice", "hi", "1700000000", "m1", "", "heart:ghost;bob"]);
    const references = rowReferences("messages", prepared);
    const issues = referenceIssues("messages", references, {
      channels: new Map([["general", true]]),
      users: new Map([
        ["alice", true],
        ["bob", true],
        ["ghost", false],
      ]),
    });
    expect(issues).toEqual([
      expect.objectContaining({
        field: "reactions",
        severity: "error",
        message: expect.stringMatching(/^Reacting user "ghost"/),
      }),
    ]);
  });
});
