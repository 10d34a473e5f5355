import { createRequire } from "node:module";
import path from "node:path";
import { cruise, type ICruiseResult, type IConfiguration } from "dependency-cruiser";
import { describe, expect, it } from "vitest";

/**
 * `npm run lint:deps` judges the code's imports by .dependency-cruiser.cjs; this shows, on
 * fixtures, that its rules fail on what they forbid: a circle of imports, and one made of
 * `import type` alone (which ESLint's import/no-cycle, no longer used, let through), and an arrow
 * from a lower layer up to a higher one.
 */
const root = path.resolve(import.meta.dirname, "../..");
const fixtures = path.join(root, "tests/fixtures/lint/dependencies");
const config = createRequire(import.meta.url)(
  path.join(root, ".dependency-cruiser.cjs"),
) as IConfiguration;

async function violations(): Promise<Array<{ rule: string; from: string; to: string }>> {
  const { tsConfig: _, ...options } = config.options ?? {};
  const output = await cruise(["lib"], {
    ...options,
    baseDir: fixtures,
    validate: true,
    ruleSet: { forbidden: config.forbidden },
  });
  const result = output.output as ICruiseResult;
  return result.summary.violations.map((violation) => ({
    rule: violation.rule.name,
    from: violation.from,
    to: violation.to,
  }));
}

describe("dependency rules on fixture files", { timeout: 60_000 }, () => {
  it("fail on a circle of imports, one of type-only imports, and on arrows up a layer", async () => {
    const found = await violations();
    expect(found).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ rule: "no-circular", from: "lib/imports/cycle-a.ts" }),
        expect.objectContaining({ rule: "no-circular", from: "lib/db/table.ts" }),
        { rule: "no-arrow-up-from-shared", from: "lib/db/table.ts", to: "lib/imports/job.ts" },
        { rule: "no-arrow-up-from-schemas", from: "lib/schemas/plan.ts", to: "lib/db/table.ts" },
      ]),
    );
    // The feature's import of the database layer is an arrow down: allowed.
    expect(found).not.toContainEqual(
      expect.objectContaining({
        rule: expect.stringMatching(/^no-arrow-up/),
        from: "lib/imports/job.ts",
      }),
    );
  });
});
