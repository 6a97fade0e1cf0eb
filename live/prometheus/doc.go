// Package prometheus is the client a sampler run needs against the
// Prometheus server of `streamtwin live up --prometheus` (Debian's
// prometheus, scraping node-exporter and Flink's Prometheus reporter every
// second; docs/live.md, "Prometheus"), after the reference testbed of
// docs/reference/monitoring.md §5.4: scraping of one metric family is
// turned on and off by rewriting Prometheus's configuration and
// `POST /-/reload`.
//
// The configuration file is a [File], written by live/cluster with
// [HostConfig] and rewritten by the [Client]: the families that are off are
// one drop rule of every scrape job's metric_relabel_configs
// (`source_labels: [__name__]`, `regex: fam1|fam2`, `action: drop`). A
// family is one metric name (node_cpu_seconds_total); the series of a
// histogram or summary are named separately. Turning a family off ends its
// series with staleness markers, which queries do not count. A reload
// restarts the changed scrape pools at the same phase of the 1 s interval,
// so the families left on lose no scrape. One job, node-truth
// ([TruthJob]), scrapes node-exporter beside job node and is never
// touched: it is a live run's 1 s ground truth.
//
// [Client.SetScraping] and [Client.Scrape] rewrite the file, POST
// /-/reload (synchronous in Prometheus 2.x: 200 once applied, 500 with the
// error otherwise) and then wait until /api/v1/status/runtimeinfo reports
// the reload: reloadConfigSuccess true and lastConfigTime not before the
// request. Prometheus fills both from its own metrics
// prometheus_config_last_reload_successful and
// prometheus_config_last_reload_success_timestamp_seconds (whole seconds).
//
// [Client.Samples] counts what the TSDB holds for a family in a time
// range with PromQL, at the range's end:
//
//	sum(count_over_time({__name__="fam",job!="node-truth"}[<to−from>ms]))    samples
//	count(count_over_time({__name__="fam",job!="node-truth"}[<to−from>ms]))  series
//
// count_over_time counts the raw samples stored in (from, to], one per
// scrape of each series, staleness markers excluded. /api/v1/query_range
// would not: it evaluates an instant query at every step, and an instant
// query returns the newest sample of the last 5 minutes, so a series
// scraped every 15 s reads as a value at every 1 s step. Dividing the
// samples by series × seconds gives a family's transmitted share: 1 when it
// was scraped every second.
//
// [Client.Series] is /api/v1/query_range at a step (1 s for a ground
// truth): PromQL values, e.g. the host metrics of §4 (rate of
// node_cpu_seconds_total, MemAvailable / MemTotal, disk bytes read and
// written).
//
// Everything goes through the official client,
// github.com/prometheus/client_golang/api and api/prometheus/v1; only the
// reload, which it has no call for, is a request of its api.Client.
package prometheus
