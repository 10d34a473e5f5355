// @ts-check

/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite loads its WebAssembly and data files from its own package directory,
  // and pg has optional native bindings: both must stay plain Node requires.
  serverExternalPackages: ["@electric-sql/pglite", "pg"],
  poweredByHeader: false,
  experimental: {
    // Import uploads arrive in chunks that the import actions limit to 1 MB with a message in
    // plain words; Next.js's own limit must sit above that, not in front of it.
    serverActions: { bodySizeLimit: "2mb" },
  },
  typedRoutes: false,
};

export default nextConfig;
