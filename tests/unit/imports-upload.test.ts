import { describe, expect, it } from "vitest";
import {
  uploadRows,
  UploadFailed,
  type ImportUploadActions,
  type UploadState,
} from "@/components/imports/wizard/upload-rows";
import type { ActionResult } from "@/lib/actions/action-result";
import { MAX_CHUNK_BYTES } from "@/lib/imports/types";
import { autoMap } from "@/lib/imports/mapping";
import type { PreviewRequest, PreviewResults } from "@/lib/imports/parse/protocol";
import { PreviewSession } from "@/lib/imports/parse/preview-session";

/** The worker's session, answered in-process. */
function clientOf(session: PreviewSession) {
  return {
    request: async <T extends PreviewRequest>(request: T): Promise<PreviewResults[T["type"]]> => {
      if (request.type !== "upload-rows") throw new Error(`unexpected ${request.type}`);
      return {
        rows: session.uploadRows(request.start, request.size, request.maxBytes),
      } as PreviewResults[T["type"]];
    },
  };
}

function fakeServer(failOnCall?: number) {
  const stored = new Map<number, string[]>();
  let calls = 0;
  const actions: ImportUploadActions = {
    createImportJob: async () => ({ data: { jobId: "job-1" } }),
    appendImportRows: async ({ rows }): Promise<ActionResult<{ received: number }>> => {
      calls++;
      // The server's own limit (appendRows), in bytes of the JSON.
      if (Buffer.byteLength(JSON.stringify(rows)) > MAX_CHUNK_BYTES)
        return { serverError: "A chunk holds at most 1 MB." };
      if (calls === failOnCall) return { serverError: "The database is busy." };
      for (const row of rows) stored.set(row.index, row.values);
      return { data: { received: rows.length } };
    },
    finishImportUpload: async ({ jobId }) => ({ data: { jobId } }),
  };
  return { actions, stored, calls: () => calls };
}

describe("uploadRows", () => {
  const session = new PreviewSession("users", [
    ["user_id", "nickname"],
    ...Array.from({ length: 4500 }, (_, at) => [`u${at}`, `N${at}`]),
  ]);
  session.chooseHeader(0);
  const mapping = autoMap("users", ["user_id", "nickname"]);
  session.validate(mapping);
  const job = {
    resource: "users" as const,
    fileName: "u.csv",
    columns: ["user_id", "nickname"],
    mapping,
    transforms: {},
    firstRow: 2,
  };

  it("sends every row once, in chunks of at most 2,000", async () => {
    const server = fakeServer();
    const progress: UploadState[] = [];
    const jobId = await uploadRows(
      clientOf(session),
      server.actions,
      job,
      { jobId: null, sent: 0, total: 4500 },
      (state) => progress.push(state),
    );
    expect(jobId).toBe("job-1");
    expect(server.stored.size).toBe(4500);
    expect(server.calls()).toBe(3);
    expect(progress.at(-1)).toEqual({ jobId: "job-1", sent: 4500, total: 4500 });
  });

  it("a failed chunk is retried from where it stopped, without sending earlier rows again", async () => {
    const server = fakeServer(2);
    const failure = await uploadRows(
      clientOf(session),
      server.actions,
      job,
      { jobId: null, sent: 0, total: 4500 },
      () => {},
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UploadFailed);
    const { state } = failure as UploadFailed;
    expect(state).toEqual({ jobId: "job-1", sent: 2000, total: 4500 });
    await uploadRows(clientOf(session), server.actions, job, state, () => {});
    expect(server.stored.size).toBe(4500);
    expect(server.calls()).toBe(4);
  });

  it("counts a chunk in bytes: rows of 3-byte characters stay under the server's 1 MB", async () => {
    // 2,000 rows with a 300-character bio in Japanese (ignored, but sent for the failures CSV).
    const bio = "こんにちは世界".repeat(43);
    const japanese = new PreviewSession("users", [
      ["user_id", "nickname", "bio"],
      ...Array.from({ length: 2000 }, (_, at) => [`u${at}`, `名前${at}`, bio]),
    ]);
    japanese.chooseHeader(0);
    const bioMapping = { ...autoMap("users", ["user_id", "nickname"]), bio: "" };
    japanese.validate(bioMapping);
    const server = fakeServer();
    await uploadRows(
      clientOf(japanese),
      server.actions,
      { ...job, columns: ["user_id", "nickname", "bio"], mapping: bioMapping },
      { jobId: null, sent: 0, total: 2000 },
      () => {},
    );
    expect(server.stored.size).toBe(2000);
    expect(server.stored.get(1999)).toEqual(["u1999", "名前1999", bio]);
  });

  it("names a row too large for any chunk, counting quotes as JSON escapes them", async () => {
    const dataMapping = { ...autoMap("users", ["user_id", "nickname"]), data: "" };
    const dataJob = { ...job, columns: ["user_id", "nickname", "data"], mapping: dataMapping };
    // 1.1 MB of text, or 600,000 quotes (each two bytes once escaped): no chunk can hold the row.
    for (const cell of ["x".repeat(1_100_000), '"'.repeat(600_000)]) {
      const session = new PreviewSession("users", [
        ["user_id", "nickname", "data"],
        ["u1", "N", ""],
        ["u2", "N", cell],
      ]);
      session.chooseHeader(0);
      session.validate(dataMapping);
      const server = fakeServer();
      await expect(
        uploadRows(
          clientOf(session),
          server.actions,
          dataJob,
          { jobId: null, sent: 0, total: 2 },
          () => {},
        ),
      ).rejects.toThrow(
        /^Row 3 holds 1\.\d MB of text, more than the 1023 KB a row can be sent with/,
      );
      // Nothing is sent: the row is shortened in the preview first.
      expect(server.calls()).toBe(0);
    }
  });
});
