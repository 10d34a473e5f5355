/**
 * `npm run lint:deps` (part of `npm run lint` and `npm test`): the code's imports, type-only
 * imports included, must hold no circle and no arrow from a lower layer up to a higher one.
 * ESLint's import/no-cycle skips `import type`, so it cannot see a circle made of types; this
 * can. tests/unit/dependency-rules.test.ts shows both rules failing on fixtures.
 *
 * The layers, highest first. Each may import its own layer and the ones below, never above.
 * 5. Entries: app/, proxy.ts, instrumentation.ts and the processes' main modules.
 * 4. components/
 * 3. What composes the features: lib/actions, lib/startup.ts, lib/server, lib/client.
 * 2. The features: auth, forms, imports, sandbox, settings, targets, webhooks, conformance.
 * 1. The shared modules: platform, db, background, delivery, text, env.ts, retry.ts,
 *    request-origin.ts; lowest of all lib/schemas, plain zod schemas that import nothing of ours.
 */
const layers = [
  {
    name: "entries",
    path: [
      "^app/",
      "^proxy\\.ts$",
      "^instrumentation\\.ts$",
      "^lib/(console|sandbox)-server\\.ts$",
      "^lib/imports/jobs/worker/worker\\.ts$",
      "^lib/conformance/cli\\.ts$",
    ],
  },
  { name: "components", path: ["^components/"] },
  {
    name: "composers",
    path: ["^lib/actions/", "^lib/startup\\.ts$", "^lib/server/", "^lib/client/"],
  },
  {
    name: "features",
    path: ["^lib/(auth|forms|imports|sandbox|settings|targets|webhooks|conformance)/"],
  },
  {
    name: "shared",
    path: ["^lib/(platform|db|background|delivery|text)/", "^lib/(env|retry|request-origin)\\.ts$"],
  },
  { name: "schemas", path: ["^lib/schemas/"] },
];

/** One rule per layer: nothing in it imports a layer above it (entries are matched first). */
const upwardArrows = layers.slice(1).map((layer, index) => {
  const above = layers.slice(0, index + 1);
  return {
    name: `no-arrow-up-from-${layer.name}`,
    comment: `${layer.name} may not import ${above.map((each) => each.name).join(", ")}: arrows go down only.`,
    severity: "error",
    from: { path: layer.path, pathNot: above.flatMap((each) => each.path) },
    to: { path: above.flatMap((each) => each.path) },
  };
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "A circle of imports, type-only ones included.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    ...upwardArrows,
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|\\.next)/" },
    // Keeps `import type` and other imports TypeScript erases: they make circles too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js", ".mjs", ".json"] },
  },
};
