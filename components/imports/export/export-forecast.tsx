import {
  forecastTexts,
  type ExportForecast as Forecast,
  type ForecastGroup,
} from "@/lib/imports/export-flow";
import { counted } from "@/lib/text/counted";

const groups: Array<{ group: ForecastGroup; title: string; tone: string }> = [
  { group: "exact", title: "Carries over exactly", tone: "border-emerald-200" },
  { group: "changed", title: "Changes form", tone: "border-amber-200" },
  { group: "lost", title: "Cannot carry over", tone: "border-red-200" },
];

/** The fidelity forecast (issue 24, item 2(c)): nothing has been sent yet. */
export function ExportForecast({ forecast }: { forecast: Forecast }) {
  return (
    <div className="space-y-4" data-testid="export-forecast">
      <p className="text-sm text-slate-700" data-testid="forecast-rows">
        Three imports will be created, as if from files: a users import of{" "}
        {counted(forecast.rows.users, "row")}, a group channels import of{" "}
        {counted(forecast.rows.group_channels, "row")} and a messages import of{" "}
        {counted(forecast.rows.messages, "row")}. Each is planned against the platform before
        anything is sent; you then rehearse and run them in order from their pages.
      </p>
      {groups.map(({ group, title, tone }) => {
        const lines = forecast.lines.filter((line) => line.group === group);
        return (
          <section key={group} aria-label={title} className={`border-l-4 pl-3 ${tone}`}>
            <h3 className="text-sm font-semibold text-slate-900">{title}</h3>
            {lines.length === 0 ? (
              <p className="text-sm text-slate-600">Nothing.</p>
            ) : (
              <ul className="mt-1 space-y-1 text-sm">
                {lines.map((line) => (
                  <li
                    key={line.key}
                    data-testid={`forecast-${line.key}`}
                    className="grid grid-cols-[4.5rem_minmax(0,1fr)] gap-x-3"
                  >
                    <span
                      className="text-right font-semibold tabular-nums"
                      data-testid="forecast-count"
                    >
                      {line.count.toLocaleString("en-US")}
                    </span>
                    <span>
                      {forecastTexts[line.key]}
                      {line.example && (
                        <span className="block truncate text-xs text-slate-500">
                          e.g. {line.example}
                        </span>
                      )}
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </section>
        );
      })}
    </div>
  );
}
