import fs from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import * as prettier from "prettier";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * `npm test` runs `eslint .` and `prettier --check .`; these show, once each, that they fail
 * on what the rules forbid. Fixtures live in tests/fixtures/lint (ignored by both tools, so
 * the tree stays clean); files that must sit inside lib/ to be judged are linted as text
 * under a path there, without being written.
 */
const root = path.resolve(import.meta.dirname, "../..");
const fixtures = path.join(root, "tests/fixtures/lint");
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: root, ignore: false });
});

const ruleIds = (results: ESLint.LintResult[]) =>
  results.flatMap((result) => result.messages.map((message) => message.ruleId));

describe("lint rules on fixture files", { timeout: 120_000 }, () => {
  it("fails on a feature reaching into another feature's internals, and allows the shared modules", async () => {
    const filePath = path.join(root, "lib/imports/lint-fixture.ts");
    const crossing = await eslint.lintText(
      'import { diffWebhookSettings } from "@/lib/webhooks/settings-diff";\n\nexport const x = diffWebhookSettings;\n',
      { filePath },
    );
    expect(ruleIds(crossing)).toContain("import/no-restricted-paths");
    const shared = await eslint.lintText(
      'import { env } from "@/lib/env";\nimport { platformRetries } from "@/lib/platform/retries";\n\nexport const x = [env, platformRetries];\n',
      { filePath },
    );
    expect(ruleIds(shared)).toEqual([]);
  });

  it("keeps the database's tables off every feature, the imports' types included", async () => {
    const upward = await eslint.lintText(
      'import type { JobPlan } from "@/lib/imports/types";\n\nexport type X = JobPlan;\n',
      { filePath: path.join(root, "lib/db/schema/lint-fixture.ts") },
    );
    expect(ruleIds(upward)).toContain("import/no-restricted-paths");
  });

  it("keeps app/, components/ and proxy.ts off the database, and everything outside the import jobs on their entry", async () => {
    const lint = async (source: string, file: string) =>
      ruleIds(await eslint.lintText(source, { filePath: path.join(root, file) }));
    const page = "app/(console)/imports/lint-fixture.ts";
    const readsDb = 'import { getDb } from "@/lib/db/client";\n\nexport const x = getDb;\n';
    expect(await lint(readsDb, page)).toContain("import/no-restricted-paths");
    expect(await lint(readsDb, "proxy.ts")).toContain("import/no-restricted-paths");
    expect(
      await lint(
        'import type { RateLimitSettings } from "@/lib/db/schema";\n\nexport type X = RateLimitSettings;\n',
        "components/settings/lint-fixture.ts",
      ),
    ).toContain("import/no-restricted-paths");
    const inside =
      'import { controlJob } from "@/lib/imports/jobs/run/control";\n\nexport const x = controlJob;\n';
    for (const file of [
      page,
      "components/imports/jobs/lint-fixture.ts",
      "lib/actions/lint-fixture.ts",
      "lib/imports/lint-fixture.ts",
    ]) {
      expect(await lint(inside, file)).toContain("import/no-restricted-paths");
    }
    const entry =
      'import { controlJob } from "@/lib/imports/jobs";\n\nexport const x = controlJob;\n';
    expect(await lint(entry, page)).toEqual([]);
    expect(await lint(entry, "lib/actions/lint-fixture.ts")).toEqual([]);
    // Inside, the stages import one another.
    expect(
      await lint(
        'import { requireJob } from "../store/jobs";\n\nexport const x = requireJob;\n',
        "lib/imports/jobs/run/lint-fixture.ts",
      ),
    ).toEqual([]);
  });

  it("fails on a file name that is not kebab-case", async () => {
    const results = await eslint.lintText("export const x = 1;\n", {
      filePath: path.join(root, "lib/imports/jobPlan.ts"),
    });
    expect(ruleIds(results)).toContain("check-file/filename-naming-convention");
  });

  it("fails on a formatting error", async () => {
    const filepath = path.join(fixtures, "badly-formatted.ts");
    const options = { ...(await prettier.resolveConfig(filepath)), filepath };
    const source = fs.readFileSync(filepath, "utf8");
    expect(await prettier.check(source, options)).toBe(false);
    expect(await prettier.check(await prettier.format(source, options), options)).toBe(true);
  });
});
