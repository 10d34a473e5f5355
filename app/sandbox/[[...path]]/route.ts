import { getSandboxApp } from "@/lib/sandbox";

// The embedded platform, mounted as-is: authenticated by Api-Token, not by the console session.
export const dynamic = "force-dynamic";

function handle(request: Request): Response | Promise<Response> {
  return getSandboxApp().fetch(request);
}

export {
  handle as DELETE,
  handle as GET,
  handle as HEAD,
  handle as PATCH,
  handle as POST,
  handle as PUT,
};
