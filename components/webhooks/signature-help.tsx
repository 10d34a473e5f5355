"use client";

import { CopyButton } from "@/components/ui/copy-button";
import { signatureSnippets } from "@/lib/webhooks/delivery-log";

export type SignatureHelpProps = { kind: "sandbox" | "remote" };

/** How a receiver checks `x-sendbird-signature`, with snippets to copy. */
export function SignatureHelp({ kind }: SignatureHelpProps) {
  return (
    <div className="space-y-4 text-sm text-slate-700">
      <p>
        The header <code className="font-mono">x-sendbird-signature</code> is the hex HMAC-SHA256 of
        the raw request body, keyed with the application&apos;s API token. Compute it over the bytes
        exactly as received (before parsing the JSON) and compare in constant time; refuse the
        request when they differ.{" "}
        {kind === "remote"
          ? "The test events this console posts to your endpoint itself are signed the same way, with the API token the console uses."
          : "The sandbox signs every delivery, test events included."}
      </p>
      <p>
        Delivery is at least once: after a crash or a timeout the same event can arrive again. An
        identical body (and so an identical signature) is a repeat; keep the signatures of recent
        deliveries and skip the ones you have seen.
      </p>
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        <Snippet language="Node.js" code={signatureSnippets.node} />
        <Snippet language="Python" code={signatureSnippets.python} />
      </div>
    </div>
  );
}

function Snippet({ language, code }: { language: string; code: string }) {
  return (
    <figure className="space-y-1">
      <figcaption className="flex items-center justify-between text-xs font-medium text-slate-600">
        {language}
        <CopyButton value={code} label={`Copy the ${language} snippet`} />
      </figcaption>
      <pre
        className="overflow-x-auto rounded bg-slate-900 p-3 font-mono text-xs text-slate-100"
        tabIndex={0}
      >
        {code}
      </pre>
    </figure>
  );
}
