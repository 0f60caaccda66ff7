/**
 * The one place Ward's parts declare what they measure (`metrics.histogram`, `.counter`, `.gauge`),
 * whether or not this process exposes metrics. Declaring costs nothing and needs no library: an
 * instrument records only once `enableMetrics()` has loaded prom-client, which a backend does when
 * WARD_METRICS_PORT is set. Until then, and in every process that never enables them (the CLI,
 * a backend with metrics off), `observe`, `inc` and `set` do nothing, and prom-client (slow to
 * load) is never imported.
 *
 * Names follow Prometheus's conventions: `ward_` first, the unit last (`_seconds`, `_bytes`),
 * `_total` for counters. Labels must take few values (a route template, never a URL or an id).
 * Declaring a name twice returns the first instrument, so a part may declare at import time or
 * each time it starts.
 */
import type * as PromClient from 'prom-client';

export type LabelValues<L extends string> = Partial<Record<L, string | number>>;

interface Definition<L extends string> {
  /** `ward_<what>_<unit>`, e.g. `ward_jobs_wait_seconds`. */
  name: string;
  /** One sentence for the `# HELP` line. */
  help: string;
  labelNames?: readonly L[];
}

export interface HistogramDefinition<L extends string> extends Definition<L> {
  /** Upper bounds, in the metric's unit; default DURATION_BUCKETS. */
  buckets?: readonly number[];
}

/** One value a gauge reports at a scrape. */
export interface Reading<L extends string> {
  labels?: LabelValues<L>;
  value: number;
}

export interface GaugeDefinition<L extends string> extends Definition<L> {
  /**
   * Read at each scrape, replacing what was set: for figures that are cheaper to read when asked
   * (a pool's free connections, a queue's depth) than to track. A throw fails that scrape.
   */
  collect?: () => ReadonlyArray<Reading<L>> | Promise<ReadonlyArray<Reading<L>>>;
}

export interface Histogram<L extends string> {
  observe(labels: LabelValues<L>, value: number): void;
  /** Starts timing; the returned function observes the seconds since, with these labels and `more`. */
  startTimer(labels?: LabelValues<L>): (more?: LabelValues<L>) => void;
}

export interface Counter<L extends string> {
  inc(labels?: LabelValues<L>, by?: number): void;
}

export interface Gauge<L extends string> {
  set(labels: LabelValues<L>, value: number): void;
}

/** Seconds, from a millisecond to a minute: requests, steps, queries, audit writes. */
export const DURATION_BUCKETS: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

interface Live {
  client: typeof PromClient;
  registry: PromClient.Registry;
}

interface Declared {
  kind: 'histogram' | 'counter' | 'gauge';
  instrument: unknown;
  bind(live: Live): void;
}

const declared = new Map<string, Declared>();
let live: Live | null = null;
let enabling: Promise<MetricsRegistry> | null = null;

function declare<T>(
  kind: Declared['kind'],
  name: string,
  make: () => { instrument: T; bind(live: Live): void },
): T {
  const existing = declared.get(name);
  if (existing !== undefined) {
    if (existing.kind !== kind) throw new Error(`metric ${name} is already declared as a ${existing.kind}`);
    return existing.instrument as T;
  }
  const made = make();
  declared.set(name, { kind, ...made });
  if (live !== null) made.bind(live);
  return made.instrument;
}

const labelNamesOf = <L extends string>(definition: Definition<L>): L[] => [...(definition.labelNames ?? [])];

export const metrics = {
  histogram<L extends string = never>(definition: HistogramDefinition<L>): Histogram<L> {
    return declare('histogram', definition.name, () => {
      let bound: PromClient.Histogram<L> | null = null;
      const observe = (labels: LabelValues<L>, value: number) => bound?.observe(labels, value);
      return {
        instrument: {
          observe,
          startTimer(labels = {}) {
            if (bound === null) return () => undefined;
            const start = performance.now();
            return (more = {}) => observe({ ...labels, ...more }, (performance.now() - start) / 1000);
          },
        },
        bind: ({ client, registry }) => {
          bound = new client.Histogram({
            name: definition.name,
            help: definition.help,
            labelNames: labelNamesOf(definition),
            buckets: [...(definition.buckets ?? DURATION_BUCKETS)],
            registers: [registry],
          });
        },
      };
    });
  },

  counter<L extends string = never>(definition: Definition<L>): Counter<L> {
    return declare('counter', definition.name, () => {
      let bound: PromClient.Counter<L> | null = null;
      return {
        instrument: { inc: (labels = {}, by = 1) => bound?.inc(labels, by) },
        bind: ({ client, registry }) => {
          bound = new client.Counter({
            name: definition.name,
            help: definition.help,
            labelNames: labelNamesOf(definition),
            registers: [registry],
          });
        },
      };
    });
  },

  gauge<L extends string = never>(definition: GaugeDefinition<L>): Gauge<L> {
    return declare('gauge', definition.name, () => {
      let bound: PromClient.Gauge<L> | null = null;
      const { collect } = definition;
      return {
        instrument: { set: (labels, value) => bound?.set(labels, value) },
        bind: ({ client, registry }) => {
          bound = new client.Gauge({
            name: definition.name,
            help: definition.help,
            labelNames: labelNamesOf(definition),
            registers: [registry],
            ...(collect === undefined
              ? {}
              : {
                  async collect(this: PromClient.Gauge<L>) {
                    const readings = await collect();
                    this.reset();
                    for (const { labels, value } of readings) this.set(labels ?? {}, value);
                  },
                }),
          });
        },
      };
    });
  },
};

export interface MetricsRegistry {
  /** The Content-Type of `text()`: Prometheus's text exposition format. */
  contentType: string;
  /** Every metric as Prometheus reads it, gauges' `collect` read now. */
  text(): Promise<string>;
}

/**
 * Loads prom-client, makes every declared instrument (and each one declared later) record, and
 * adds the process's own figures (CPU, memory, heap, event-loop lag, garbage collection, open
 * handles: prom-client's default metrics, under their usual names). Once per process; later calls
 * return the same registry.
 */
export function enableMetrics(): Promise<MetricsRegistry> {
  enabling ??= (async () => {
    const client = await import('prom-client');
    const registry = new client.Registry();
    client.collectDefaultMetrics({ register: registry });
    live = { client, registry };
    for (const entry of declared.values()) entry.bind(live);
    return {
      contentType: registry.contentType,
      text: () => registry.metrics(),
    };
  })();
  return enabling;
}

/** Whether this process records: for callers whose measuring is itself costly (a per-request timer). */
export const metricsEnabled = (): boolean => live !== null;
