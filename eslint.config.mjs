import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  globalIgnores([".next/**", ".data/**", "next-env.d.ts", "test-results/**", "playwright-report/**"]),
  {
    // Arrows go one way: app -> components -> lib. The sandbox is a self-contained
    // platform and must never reach into the console.
    rules: {
      "import/no-restricted-paths": [
        "error",
        {
          zones: [
            { target: "./lib", from: "./app" },
            { target: "./lib", from: "./components" },
            { target: "./components", from: "./app" },
            { target: "./lib/sandbox", from: "./lib/actions" },
            { target: "./lib/sandbox", from: "./lib/auth" },
            { target: "./lib/sandbox", from: "./lib/platform" },
            { target: "./lib/sandbox", from: "./lib/imports" },
            // The platform client is given its transport; it never loads the sandbox itself.
            { target: "./lib/platform", from: "./lib/sandbox" },
          ],
        },
      ],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
]);
