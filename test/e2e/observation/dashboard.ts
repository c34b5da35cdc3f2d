/**
 * The Grafana dashboard's queries, and the metric names in them and in an exposition: for the
 * checks that its panels show what an operator exposes (a unit test against the names, an
 * end-to-end test against a real Prometheus).
 */

export interface DashboardQuery {
  panel: string;
  expr: string;
}

interface Panel {
  title?: string;
  targets?: { expr?: string }[];
  panels?: Panel[];
}

/** Every target's query, with its panel's title; rows' nested panels included. */
export function dashboardQueries(json: string): DashboardQuery[] {
  const queries: DashboardQuery[] = [];
  const visit = (panels: readonly Panel[]): void => {
    for (const panel of panels) {
      for (const target of panel.targets ?? []) {
        if (target.expr) queries.push({ panel: panel.title ?? '?', expr: target.expr });
      }
      visit(panel.panels ?? []);
    }
  };
  visit((JSON.parse(json) as { panels: Panel[] }).panels);
  return queries;
}

/**
 * The metrics a query selects: the names before its selectors' braces (the dashboard writes every
 * selector with braces), string literals left out.
 */
export function metricsOf(expr: string): string[] {
  const bare = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  return [...bare.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g)].map((m) => m[1]!);
}

/** The sample names of an exposition in Prometheus's text format, from its `# TYPE` lines. */
export function exposedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
    else if (type === 'summary') for (const suffix of ['', '_sum', '_count']) names.add(name + suffix);
    else names.add(name!);
  }
  return names;
}

/** A query as Prometheus can run it: Grafana's variables given values that select everything. */
export function runnable(expr: string, rateInterval = '15s'): string {
  return expr
    .replaceAll('$__rate_interval', rateInterval)
    .replaceAll('$job', '.*')
    .replaceAll('$resource', '.*');
}
