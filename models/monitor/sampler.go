package monitor

// Point is one scraped value of a metric at second T (since the start).
type Point struct {
	T int
	V float64
}

// Step is a sampler's plan from now on: scrape the metric every second for
// Scrape seconds, then skip it for Skip seconds; Scrape+Skip ≥ 1. A fixed
// 15 s interval answers {Scrape: 1, Skip: 14}; AdaM {0, T−1} after a
// sample and then {1, 0}, so it sees each sample before it sets the next
// gap; the forecast rule {window, 0} for an uncertain window, or {0,
// window} with Fill.
type Step struct {
	Scrape, Skip int
	// Fill is what the sampler assumes the metric was during the skipped
	// seconds (len Skip; the forecast rule's draw); nil: the replay
	// reconstructs them by linear interpolation between scraped points.
	Fill []float64
}

// Sampler decides when one metric is scraped. The replay (or the live
// driver, against Prometheus) calls Next at second now with every point
// scraped so far, oldest first, and follows the Step it returns until its
// end, then calls Next again. A Sampler is built for one metric and one run;
// it must be deterministic given its inputs and its seed.
type Sampler interface {
	Next(now int, scraped []Point) Step
}

// Scale is a metric's min-max scaling, in which the forecast rule's
// threshold is given (the monitoring reference's units: darts' Scaler on the
// training data).
type Scale struct{ Min, Max float64 }

// Unit maps v into the scaled units: (v − Min)/(Max − Min).
func (s Scale) Unit(v float64) float64 { return (v - s.Min) / (s.Max - s.Min) }

// Value maps a scaled u back.
func (s Scale) Value(u float64) float64 { return s.Min + u*(s.Max-s.Min) }
