import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { listRows, rowCounts } from "@/lib/imports/jobs/store/jobs";
import { appendRows, countRows, createJob, finishUpload } from "@/lib/imports/jobs/store/upload";
import { usersFile, usersMapping } from "@/tests/fixtures/imports";
import { call, sharedSandbox } from "./support/http";
import {
  failuresCsv,
  jobProgress,
  reportPage,
  rowRequests,
} from "@/lib/imports/jobs/report/report";
import { requestPlan } from "@/lib/imports/jobs/plan/plan";
import { jobFromRowsNotDone } from "@/lib/imports/jobs/report/rows-not-done";
import { autoMap } from "@/lib/imports/mapping";
import { PreviewSession } from "@/lib/imports/parse/preview-session";
import { readRecords } from "@/lib/imports/parse/read-file";
import {
  clientFor,
  createPlannedJob,
  finishMigration,
  runJob,
  uploadPreview,
  useJobDatabase,
  waitForPlan,
} from "./imports-harness";

describe("an import job against the sandbox", () => {
  const sandbox = sharedSandbox();
  const jobs = useJobDatabase();

  it("plans, creates the valid users once, skips the existing, deactivates the inactive", async () => {
    const prefix = `run_${randomBytes(4).toString("hex")}`;
    const file = usersFile(300, prefix, { inactiveEvery: 50 });
    file.rows.push(["", "No id", "true"]); // invalid: no user_id
    file.rows.push([`${prefix}_7`, "Duplicate", "true"]); // duplicate of row 7
    await clientFor(sandbox).users.create({
      user_id: `${prefix}_3`,
      nickname: "Before",
      profile_url: "",
    });

    const planned = await createPlannedJob(jobs.handle, sandbox, "users", file, usersMapping, {
      excluded: [5],
    });
    expect(planned.status).toBe("planned");
    expect(planned.plan).toMatchObject({
      toCreate: 298,
      existing: 1,
      invalid: 2,
      excluded: 1,
      followUps: { deactivate: 6 },
    });

    const { job } = await runJob(jobs.handle, sandbox, planned.id);
    expect(job.status).toBe("completed");
    const counts = await rowCounts(jobs.handle.db, job.id);
    expect(counts).toMatchObject({
      created: 298,
      existed: 1,
      invalid: 2,
      excluded: 1,
      failed: 0,
      pending: 0,
      followUpsPending: 0,
    });

    const before = await call<{ nickname: string }>(sandbox, "GET", `/v3/users/${prefix}_3`);
    expect(before.body.nickname).toBe("Before"); // nothing overwritten
    // Created active: the deactivation waits for the migration's last stage.
    const inactive = async () =>
      (await call<{ is_active: boolean }>(sandbox, "GET", `/v3/users/${prefix}_50`)).body;
    expect((await inactive()).is_active).toBe(true);
    await finishMigration(jobs.handle, sandbox);
    expect((await inactive()).is_active).toBe(false);
    const active = await call<{ is_active: boolean }>(sandbox, "GET", `/v3/users/${prefix}_51`);
    expect(active.body.is_active).toBe(true);
    const excluded = await call(sandbox, "GET", `/v3/users/${prefix}_5`);
    expect(excluded.body.code).toBe(400201);
    const [duplicate] = await listRows(jobs.handle.db, job.id, {
      states: ["invalid"],
      afterIndex: 300,
      limit: 5,
    });
    // Index 7 is the file's line 9 (the header is line 1): the number a spreadsheet shows.
    expect(duplicate?.planIssues[0]?.message).toContain("row 9");
  });

  it("takes a chunk sent twice once, and refuses bad uploads without changing anything", async () => {
    const { db } = jobs.handle;
    const columns = ["user_id", "nickname"];
    const mapping = { user_id: "user_id", nickname: "nickname" };
    await expect(
      createJob(db, {
        resource: "users",
        fileName: "big.csv",
        columns,
        mapping,
        totalRows: 1_000_001,
      }),
    ).rejects.toThrow(/at most 1,000,000/);
    await expect(
      createJob(db, {
        resource: "users",
        fileName: "x.csv",
        columns,
        mapping: { other: "user_id" },
        totalRows: 1,
      }),
    ).rejects.toThrow(/column the file does not have/);
    // The wizard's mapping rules hold on the server too: a field twice, a required field left
    // out, a field the resource does not have.
    const refusedMappings: Array<[Record<string, string>, RegExp]> = [
      [
        { user_id: "user_id", nickname: "user_id" },
        /User id is chosen for "user_id" and "nickname"/,
      ],
      [{ user_id: "user_id", nickname: "" }, /Choose the column that holds the nickname/],
      [
        { user_id: "user_id", nickname: "user_ids" },
        /"nickname" is mapped to "user_ids", which is not a field/,
      ],
    ];
    for (const [refused, message] of refusedMappings)
      await expect(
        createJob(db, {
          resource: "users",
          fileName: "x.csv",
          columns,
          mapping: refused,
          totalRows: 1,
        }),
      ).rejects.toThrow(message);
    const job = await createJob(db, {
      resource: "users",
      fileName: "u.csv",
      columns,
      mapping,
      totalRows: 3,
    });
    const chunk = [0, 1].map((index) => ({ index, values: [`chunk_${index}`, "Name"] }));
    await appendRows(db, job.id, chunk);
    await appendRows(db, job.id, chunk);
    expect(await countRows(db, job.id)).toBe(2);

    const tooMany = Array.from({ length: 5001 }, (_, index) => ({ index, values: ["a", "b"] }));
    await expect(appendRows(db, job.id, tooMany)).rejects.toThrow(/at most 5,000 rows/);
    await expect(
      appendRows(db, job.id, [{ index: 2, values: ["a", "x".repeat(1_100_000)] }]),
    ).rejects.toThrow(/at most 1 MB/);
    await expect(
      appendRows(db, job.id, [{ index: 1_000_020, values: ["a", "b"] }]),
    ).rejects.toThrow(/outside the file/);
    await expect(appendRows(db, job.id, [{ index: 2, values: ["a", "b", "c"] }])).rejects.toThrow(
      /has 3 values but the file has 2 columns/,
    );
    // A NUL (a JSON file's \u0000) is refused with a sentence, not a database error, even when
    // the row is excluded or the cell ignored: the cells are stored as they came.
    for (const values of [
      ["a", "A\u0000B"],
      ["a\uD800", "b"],
    ])
      await expect(appendRows(db, job.id, [{ index: 2, values, excluded: true }])).rejects.toThrow(
        /Row 2 has a cell with a NUL character or half of a surrogate pair/,
      );
    await expect(appendRows(db, "00000000-0000-4000-8000-000000000000", chunk)).rejects.toThrow(
      /no such import/,
    );
    await expect(finishUpload(db, job.id)).rejects.toThrow(
      /Only 2 of the file's 3 rows have arrived/,
    );
    expect(await countRows(db, job.id)).toBe(2);

    // A row number or place past any file (typed into the report's URL or Show request) finds
    // nothing, instead of an integer out of range from the database.
    expect(await reportPage(db, job.id, { afterIndex: 99_999_999_999 })).toEqual({
      rows: [],
      nextAfter: null,
    });
    expect(await rowRequests(db, job.id, { rowNumber: 99_999_999_999 })).toBeNull();
  });

  it("applies each column's transform on the server as the preview did, and refuses one that cannot apply", async () => {
    const prefix = `tr_${randomBytes(4).toString("hex")}`;
    // Slack's users: `deleted` says the opposite of is_active; ids get a prefix by pattern.
    const records = [
      ["id", "real_name", "deleted", "profile.image_512"],
      [`U${prefix}1`, "Ann", "false", `http//cdn.example/${prefix}/1.png`],
      [`U${prefix}2`, "Bob", "true", ""],
      [`U${prefix}3`, "Cy", "maybe", ""],
    ];
    const columns = records[0]!;
    const mapping = {
      id: "user_id",
      real_name: "nickname",
      deleted: "is_active",
      "profile.image_512": "profile_url",
    };
    const transforms = {
      id: { replace: { pattern: "^U", replacement: "slack-" } },
      deleted: { invert: true as const },
      "profile.image_512": { replace: { pattern: "^http//", replacement: "https://" } },
    };
    const preview = new PreviewSession("users", records);
    preview.chooseHeader(0);
    const counts = preview.validate(mapping, () => {}, transforms);
    expect(counts).toMatchObject({ rows: 3, valid: 2, errors: 1 });
    const { db } = jobs.handle;
    const job = await createJob(db, {
      resource: "users",
      fileName: "slack-users.csv",
      columns,
      mapping,
      transforms,
      totalRows: counts.rows,
    });
    await appendRows(db, job.id, preview.uploadRows(0, 100));
    const stored = await listRows(db, job.id, { limit: 10 });
    expect(stored.map((row) => [row.state, row.resourceKey, row.body, row.followUps])).toEqual([
      [
        "pending",
        `slack-${prefix}1`,
        {
          user_id: `slack-${prefix}1`,
          nickname: "Ann",
          profile_url: `https://cdn.example/${prefix}/1.png`,
        },
        {},
      ],
      [
        "pending",
        `slack-${prefix}2`,
        { user_id: `slack-${prefix}2`, nickname: "Bob", profile_url: "" },
        { deactivate: true },
      ],
      ["invalid", `slack-${prefix}3`, null, {}],
    ]);
    // The cells stay as the file has them, for the failures CSV.
    expect(stored[0]!.values).toEqual(records[1]);
    await requestPlan(db, job.id);
    await waitForPlan(jobs.handle, sandbox, job.id);
    await runJob(jobs.handle, sandbox, job.id);
    await finishMigration(jobs.handle, sandbox);
    const bob = await call(sandbox, "GET", `/v3/users/slack-${prefix}2`);
    expect(bob.body).toMatchObject({ nickname: "Bob", is_active: false });
    const ann = await call(sandbox, "GET", `/v3/users/slack-${prefix}1`);
    expect(ann.body).toMatchObject({
      is_active: true,
      profile_url: `https://cdn.example/${prefix}/1.png`,
    });

    // The browser is not trusted: a transform the field cannot take, or a pattern RE2 cannot
    // read, is refused before any row is stored.
    const refused: Array<[Record<string, unknown>, RegExp]> = [
      [
        { real_name: { invert: true } },
        /only a true\/false field can be inverted, and it fills Nickname/,
      ],
      [{ gone: { invert: true } }, /a column the file does not have: "gone"/],
      [{ id: { replace: { pattern: "(?=U)", replacement: "" } } }, /The pattern cannot be read/],
      [{ id: { unit: "seconds" } }, /only a time field has a unit/],
    ];
    for (const [bad, message] of refused)
      await expect(
        createJob(db, {
          resource: "users",
          fileName: "x.csv",
          columns,
          mapping,
          transforms: bad as never,
          totalRows: 1,
        }),
      ).rejects.toThrow(message);
  });

  it("counts blank lines in row numbers: the failures CSV names each row's line in the file", async () => {
    const prefix = `blank_${randomBytes(4).toString("hex")}`;
    // As the reader gives a CSV: line 1 blank, 2 the header, 3 a user, 4 and 5 blank,
    // 6 a row without user_id, 7 a user, 8 blank, 9 line 3's user again.
    const records = [
      [],
      ["user_id", "nickname"],
      [`${prefix}_1`, "Ann"],
      [],
      [],
      ["", "No id"],
      [`${prefix}_2`, "Bob"],
      [],
      [`${prefix}_1`, "Ann again"],
    ];
    const preview = new PreviewSession("users", records);
    const header = preview.chooseHeader(1);
    const mapping = autoMap("users", header.columns);
    preview.validate(mapping);
    const { db } = jobs.handle;
    const job = await uploadPreview(jobs.handle, preview, {
      resource: "users",
      fileName: "blank-lines.csv",
      columns: header.columns,
      mapping,
      firstRow: header.firstRow,
    });
    await waitForPlan(jobs.handle, sandbox, job.id);
    await runJob(jobs.handle, sandbox, job.id);

    let csv = "";
    for await (const part of failuresCsv(db, job.id)) csv += part;
    const lines = csv.trim().split("\r\n");
    expect(lines[0]).toBe("user_id,nickname,reason,row");
    expect(lines.slice(1).map((line) => line.split(",").at(-1))).toEqual(["6", "9"]);
    expect(lines[2]).toContain("row 3");
  });

  it("puts the rows excluded in the preview in the failures CSV, a duplicate with the row it repeats", async () => {
    const prefix = `excl_${randomBytes(4).toString("hex")}`;
    const records = [
      ["user_id", "nickname"],
      [`${prefix}_1`, "Ann"],
      [`${prefix}_2`, "Bob"],
      [`${prefix}_1`, "Ann again"],
      [`${prefix}_3`, "Cid"],
      ["", "No id"],
    ];
    // As the administrator does: exclude the rows with errors (the repeated user, the row
    // without an id), then one more row by hand.
    const preview = new PreviewSession("users", records);
    const header = preview.chooseHeader(0);
    const mapping = autoMap("users", header.columns);
    preview.validate(mapping);
    expect(preview.excludeErrors().rows).toEqual([2, 4]);
    preview.exclude(3, true);
    const job = await uploadPreview(jobs.handle, preview, {
      resource: "users",
      fileName: "excluded.csv",
      columns: header.columns,
      mapping,
      firstRow: header.firstRow,
    });
    await waitForPlan(jobs.handle, sandbox, job.id);
    const { db } = jobs.handle;
    await runJob(jobs.handle, sandbox, job.id);
    expect(await rowCounts(db, job.id)).toMatchObject({ created: 2, excluded: 3, invalid: 0 });
    // Nothing failed, yet the page offers the failures CSV: it holds the excluded rows.
    expect(await jobProgress(db, job.id)).toMatchObject({ rowsNotDone: 0, failuresCsvRows: 3 });

    const excluded = await reportPage(db, job.id, { state: "excluded" });
    expect(excluded.rows.map((row) => [row.rowNumber, row.issues.map((i) => i.message)])).toEqual([
      [4, ["The same user_id is on row 2 of the file."]],
      [5, []],
      [6, [expect.stringMatching(/required/)]],
    ]);

    let csv = "";
    for await (const part of failuresCsv(db, job.id)) csv += part;
    const lines = csv.trim().split("\r\n");
    expect(lines).toEqual([
      "user_id,nickname,reason,row",
      `${prefix}_1,Ann again,Excluded in the preview: user_id: The same user_id is on row 2 of the file.,4`,
      `${prefix}_3,Cid,Excluded in the preview.,5`,
      expect.stringMatching(/^,No id,Excluded in the preview: user_id: .*required.*,6$/),
    ]);
    // A new job from the rows not done leaves them out: they were left out on purpose.
    await expect(jobFromRowsNotDone(db, job.id)).rejects.toThrow(
      /nothing to run again.*excluded in the preview/,
    );

    // Uploaded again, they are ordinary rows: checked anew, and sent unless excluded again.
    const read = await readRecords(new File([csv], "failures.csv"), () => {});
    const again = new PreviewSession("users", read.records);
    const againHeader = again.chooseHeader(0);
    const againMapping = autoMap("users", againHeader.columns);
    expect(againMapping).toEqual({ user_id: "user_id", nickname: "nickname", reason: "", row: "" });
    expect(again.validate(againMapping)).toMatchObject({
      rows: 3,
      valid: 2,
      errors: 1,
      excluded: 0,
    });
    const second = await uploadPreview(jobs.handle, again, {
      resource: "users",
      fileName: "failures.csv",
      columns: againHeader.columns,
      mapping: againMapping,
    });
    // The repeated user exists by now; the one excluded by hand is created.
    expect((await waitForPlan(jobs.handle, sandbox, second.id)).plan).toMatchObject({
      toCreate: 1,
      existing: 1,
      invalid: 1,
    });
  });

  it("writes formula cells of the failures CSV so no spreadsheet runs them, and reads them back", async () => {
    const prefix = `formula_${randomBytes(4).toString("hex")}`;
    // Row 2 fails (a nickname over 80 characters), row 3 has no user_id: both are failures.
    const file = {
      columns: ["user_id", "nickname", "is_active"],
      rows: [
        [`${prefix}_1`, `@SUM(A1)${"x".repeat(80)}`, "true"],
        ["", "=1+2", "-true"],
        [`${prefix}_3`, "Fine", "true"],
      ],
    };
    const planned = await createPlannedJob(jobs.handle, sandbox, "users", file, usersMapping);
    await runJob(jobs.handle, sandbox, planned.id);
    let csv = "";
    for await (const part of failuresCsv(jobs.handle.db, planned.id)) csv += part;
    const lines = csv.trim().split("\r\n");
    expect(lines[1]).toMatch(new RegExp(`^${prefix}_1,'@SUM\\(A1\\)x+,true,`));
    expect(lines[2]).toMatch(/^,'=1\+2,'-true,/);

    // The wizard reading the file (fixed in a spreadsheet or not) gets the values back.
    const read = await readRecords(new File([csv], "failures.csv"), () => {});
    expect(read.records.slice(1).map((record) => record.slice(0, 3))).toEqual(
      file.rows.slice(0, 2),
    );
  });
});
