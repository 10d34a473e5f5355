import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import checkFile from "eslint-plugin-check-file";

/**
 * The features of lib/. A feature may use the shared modules (platform, schemas, db, env,
 * background, delivery, retry.ts, request-origin.ts) and another feature's public entry
 * (its index.ts) only, never its internals. lib/actions and lib/startup.ts compose features
 * and may use them all.
 */
const features = ["auth", "forms", "imports", "sandbox", "settings", "targets", "webhooks"];
const publicEntries = { sandbox: ["./index.ts"], targets: ["./index.ts"] };
const featureZones = features.flatMap((feature) =>
  features
    .filter((other) => other !== feature)
    .map((other) => ({
      target: `./lib/${feature}`,
      from: `./lib/${other}`,
      except: publicEntries[other] ?? [],
      message: `lib/${feature} may not reach into lib/${other}: use the shared modules, or compose the two in lib/actions.`,
    })),
);
/**
 * The shared modules are below every feature: they import none. `npm run lint:deps`
 * (.dependency-cruiser.cjs) checks the same layers, and every circle of imports, `import type`
 * included (ESLint's import/no-cycle did not follow those, and took half of the lint's time).
 */
const sharedZones = ["platform", "schemas", "db", "background", "delivery"].flatMap((shared) =>
  features.map((feature) => ({
    target: `./lib/${shared}`,
    from: `./lib/${feature}`,
    except: publicEntries[feature] ?? [],
  })),
);

/**
 * The console's pages, routes and proxy never hold the database: they read through the
 * features' own functions. The import jobs have one entry, lib/imports/jobs/index.ts, for
 * everything outside them (tests may still reach the parts they test).
 */
const consoleSide = ["./app", "./components", "./proxy.ts"];
const entryZones = [
  {
    target: consoleSide,
    from: "./lib/db",
    message: "Read and write through the feature's own functions (e.g. lib/imports/jobs).",
  },
  {
    target: [
      ...consoleSide,
      "./lib/*.ts",
      "./lib/!(imports)/**",
      "./lib/imports/*.ts",
      "./lib/imports/!(jobs)/**",
    ],
    from: "./lib/imports/jobs",
    except: ["./index.ts"],
    message: "Import the jobs' entry, @/lib/imports/jobs, and add what is missing there.",
  },
];

/**
 * [target, from]: `target` may not import `from`. Arrows go one way: app -> components -> lib.
 * The sandbox is a self-contained platform and never reaches into the console; the platform
 * client is given its transport and never loads the sandbox itself.
 */
const oneWay = [
  ["./lib", "./app"],
  ["./lib", "./components"],
  ["./components", "./app"],
  ["./lib/sandbox", "./lib/actions"],
  ["./lib/sandbox", "./lib/platform"],
  ["./lib/sandbox", "./lib/startup.ts"],
  ["./lib/platform", "./lib/sandbox"],
];

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  globalIgnores([
    ".next/**",
    ".data/**",
    "next-env.d.ts",
    "test-results/**",
    "playwright-report/**",
    "tests/fixtures/lint/**",
    // CommonJS, which dependency-cruiser reads; the next configs lint no .cjs file.
    ".dependency-cruiser.cjs",
  ]),
  {
    // Dependencies are not followed for cycles (and some are too large to parse).
    settings: { "import/ignore": ["node_modules"] },
    rules: {
      "import/no-restricted-paths": [
        "error",
        {
          zones: [
            ...oneWay.map(([target, from]) => ({ target, from })),
            ...featureZones,
            ...sharedZones,
            ...entryZones,
          ],
        },
      ],
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
    },
  },
  {
    // kebab-case file and folder names (Next.js's route folders keep their own syntax).
    files: ["**/*.{ts,tsx,js,mjs}"],
    plugins: { "check-file": checkFile },
    rules: {
      "check-file/filename-naming-convention": [
        "error",
        { "**/*.{ts,tsx,js,mjs}": "KEBAB_CASE" },
        { ignoreMiddleExtensions: true },
      ],
      "check-file/folder-naming-convention": [
        "error",
        { "app/**/": "NEXT_JS_APP_ROUTER_CASE", "{components,lib,tests}/**/": "KEBAB_CASE" },
      ],
    },
  },
]);
