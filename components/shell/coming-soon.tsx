import { Badge } from "@/components/ui/badge";

export type ComingSoonProps = {
  /** What the page will let the administrator do, in their words. */
  plans: string[];
};

export function ComingSoon({ plans }: ComingSoonProps) {
  return (
    <section aria-labelledby="coming-soon" className="rounded-lg border border-dashed border-slate-300 bg-white p-6">
      <div className="flex items-center gap-2">
        <h2 id="coming-soon" className="text-base font-semibold text-slate-900">
          Coming in a later release
        </h2>
        <Badge tone="warning">Not available yet</Badge>
      </div>
      <p className="mt-2 text-sm text-slate-600">This page will let you:</p>
      <ul className="mt-2 list-disc space-y-1 pl-5 text-sm text-slate-700">
        {plans.map((plan) => (
          <li key={plan}>{plan}</li>
        ))}
      </ul>
    </section>
  );
}
