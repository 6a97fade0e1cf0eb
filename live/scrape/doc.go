// Package scrape runs adaptive-monitoring samplers (models/monitor's
// Sampler) against a real Prometheus server (live/prometheus; the cluster
// of `streamtwin live up --prometheus`) and accounts for what they
// transmitted, as the reference testbed does (docs/reference/monitoring.md
// §5.4): scraping of each metric family is turned on and off by rewriting
// Prometheus's configuration and reloading it.
//
// [Run.Do] ticks once a second for the run's duration.
// At second k, a family whose current Step has ended asks its Sampler for
// the next one (Next(k, points scraped so far)); the family is scraped in
// the Step's first Scrape seconds and not in its Skip seconds. All families
// whose state changes at a second change in one reload (Client.Scrape).
// The run counts each family's scraped seconds itself; at the end it
// waits two scrape intervals, asks the TSDB how many samples it stored for
// each family over the run (count_over_time, live/prometheus) and turns
// every family back on. The TSDB's count starts when the first second's
// reload, if there is one, has taken effect: the families were on until
// then, and a scrape in those milliseconds is not the run's.
//
// A family's transmitted share is the samples stored ÷ the samples a 1 s
// scrape of its series would have stored over the run (series × seconds);
// the run's own share is its scraped seconds ÷ the run's seconds.
// [Accounting.Check] compares the two.
//
// The Points a sampler sees are, for each scraped second, the value of the
// family's value query (Run.Values; default sum(<family>)) at the end of
// that second: the newest sample Prometheus holds then.
//
// [Session] is the monitoring side of a live run of a scenario with a
// monitoring section (streamtwin live run): it trains the section's live
// sampler on the real ground truth (job node-truth), runs it as a Run
// against job node for the rest of the run, and afterwards replays every
// sampler of the section on the whole run's truth, adding the live
// sampler's measured rows and monitoring-live.csv (docs/monitoring.md,
// "Live"). The sampler starts once its training part's truth is fetched
// and it is built, half a second and its fitting time after its first
// second began: that second's decision takes effect late, and the TSDB's
// count starts with it.
package scrape
