package monitor

import "fmt"

// Fixed scrapes every Interval seconds whatever the metric does: the
// baseline (Interval 1 is the reference's no_adaptive run; issue 23 also
// compares 5, 15 and 60 s). Build it with NewFixed, or check a literal with
// Validate: a Fixed with Interval < 1 returns a Step the replay rejects.
type Fixed struct{ Interval int }

// NewFixed returns the fixed-interval sampler, or an error for interval < 1.
func NewFixed(interval int) (Fixed, error) {
	f := Fixed{Interval: interval}
	return f, f.Validate()
}

// Validate reports an interval below one second, which no scraper can do.
func (f Fixed) Validate() error {
	if f.Interval < 1 {
		return fmt.Errorf("monitor: fixed interval %d s, want ≥ 1 s", f.Interval)
	}
	return nil
}

// Next scrapes now and skips the rest of the interval: the schedule does
// not depend on what was scraped.
func (f Fixed) Next(int, []Point) Step { return Step{Scrape: 1, Skip: f.Interval - 1} }
