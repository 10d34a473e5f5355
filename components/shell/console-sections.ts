/** The console's pages, in navigation order. A plain module: server pages read it too. */
export const consoleSections = [
  { href: "/", label: "Overview", description: "What the console targets, at a glance" },
  { href: "/webhooks", label: "Webhooks", description: "Calls webhook settings and deliveries" },
  { href: "/imports", label: "Imports", description: "Bring chat data over from another system" },
  { href: "/settings", label: "Settings", description: "Platform target and sandbox applications" },
] as const;
