import { Fragment } from "react";
import { Card } from "@/components/ui/card";
import { Table } from "@/components/ui/table";
import type { PayloadReferenceEntry } from "@/lib/webhooks/payload-reference";

export type PayloadReferenceProps = { entries: PayloadReferenceEntry[] };

/** One card per category: when it fires, its fields, and an example built by the sandbox's own builders. */
export function PayloadReference({ entries }: PayloadReferenceProps) {
  return (
    <div className="space-y-6">
      <nav aria-label="Categories" className="flex flex-wrap gap-2 text-sm">
        {entries.map((entry) => (
          <a
            key={entry.category}
            href={`#${anchor(entry.category)}`}
            className="font-mono text-indigo-700 hover:underline"
          >
            {entry.category}
          </a>
        ))}
      </nav>
      {entries.map((entry) => (
        <div key={entry.category} id={anchor(entry.category)} className="scroll-mt-4">
          <Card title={entry.category} description={`Fires when: ${entry.firesWhen}`}>
            <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
              <Table
                caption={`Fields of ${entry.category}`}
                density="compact"
                columns={["Field", "Type", "Notes"]}
              >
                {entry.fields.map((field) => (
                  <tr key={field.path} className="align-top">
                    <td className="py-1 pr-3 font-mono text-xs">
                      <BreakableAtDots path={field.path} />
                    </td>
                    <td className="py-1 pr-3 text-xs text-slate-700">{field.type}</td>
                    <td className="py-1 text-xs wrap-anywhere text-slate-600">{field.note}</td>
                  </tr>
                ))}
              </Table>
              <pre
                tabIndex={0}
                aria-label={`Example ${entry.category} payload`}
                className="max-h-96 overflow-auto rounded-md bg-slate-900 p-3 font-mono text-xs text-slate-100"
              >
                {JSON.stringify(entry.example, null, 2)}
              </pre>
            </div>
          </Card>
        </div>
      ))}
    </div>
  );
}

/** A field's path that may wrap after each dot on a narrow screen, and nowhere else. */
function BreakableAtDots({ path }: { path: string }) {
  return path.split(".").map((part, at) => (
    <Fragment key={at}>
      {at > 0 && (
        <>
          .<wbr />
        </>
      )}
      {part}
    </Fragment>
  ));
}

function anchor(category: string): string {
  return category.replace(":", "-");
}
