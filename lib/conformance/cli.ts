/**
 * `npm run conformance -- <base_url> <api_token>`: runs the migration scenario against any
 * platform address (the sandbox's `{origin}/sandbox/{application_id}`, or a real
 * application's `https://api-{app_id}.sendbird.com`) and prints a table; exits 1 when a step
 * fails. Everything it creates is named `conf_<random>_...` and deleted at the end.
 */
import { createPlatformClient } from "@/lib/platform/client";
import { formatTable, runConformance } from "./scenario";

const [baseUrl, apiToken] = process.argv.slice(2).filter((arg) => arg !== "--");
if (!baseUrl || !apiToken) {
  console.error("usage: npm run conformance -- <base_url> <api_token>");
  process.exit(2);
}
let origin: URL;
try {
  origin = new URL(baseUrl);
} catch {
  console.error(`"${baseUrl}" is not an absolute URL, e.g. http://127.0.0.1:3000/sandbox/local`);
  process.exit(2);
}

const client = createPlatformClient({
  // Only webhook settings name the application in their path; the scenario does not use them.
  appId: "",
  chatBaseUrl: origin.toString(),
  callsBaseUrl: origin.toString(),
  apiToken,
});
console.log(`Conformance against ${origin.toString().replace(/\/$/, "")}\n`);
const results = await runConformance(client);
console.log(formatTable(results));
process.exit(results.every((result) => result.ok) ? 0 : 1);
