package scrape

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/streamtwin/streamtwin/models/monitor"

	"github.com/streamtwin/streamtwin/live/prometheus"
)

// Scraper is what a run needs of Prometheus (*prometheus.Client).
type Scraper interface {
	// Scrape turns families on (true) or off in one reload.
	Scrape(ctx context.Context, states map[string]bool) error
	// Samples counts what the TSDB holds for a family in (from, to].
	Samples(ctx context.Context, family string, from, to time.Time) (prometheus.Count, error)
	// Value is an instant query.
	Value(ctx context.Context, query string, at time.Time) ([]prometheus.Sample, error)
}

var _ Scraper = (*prometheus.Client)(nil)

// Run is a sampler run against Prometheus.
type Run struct {
	Client   Scraper
	Samplers map[string]monitor.Sampler // by metric: a family, or a name of Families
	Duration time.Duration              // whole seconds
	// Families are the families each metric turns on and off together
	// (memory_rate: MemAvailable and MemTotal); default: the metric is one
	// family of its name.
	Families map[string][]string
	// Start is when the run's first second starts (a live run's sampler
	// starts at the end of its training part); zero: now.
	Start time.Time

	// Values are the PromQL queries whose value at the end of a scraped
	// second is the sampler's Point, by metric; default sum(<family>).
	Values map[string]string
	// Settle is how long the run waits after its last second before it
	// counts the TSDB's samples (default 2 s: two scrape intervals).
	Settle time.Duration
	// Second is the length of one second (tests shorten it); default 1 s.
	Second time.Duration
	// Log receives a line per state change; nil discards.
	Log func(format string, args ...any)
}

// Family is one metric's accounting (a metric of one family or several).
type Family struct {
	Name     string
	Families []string
	// the run's own books
	ScrapedSeconds int     // seconds in which it was scraped
	Steps          int     // Next calls
	Toggles        int     // on/off changes (reloads it took part in)
	RunShare       float64 // ScrapedSeconds ÷ Seconds
	Points         []monitor.Point
	// second by second: scraped, and what the monitoring system holds
	// (the point, or the sampler's fill); Result reconstructs the rest
	Scraped, have, filled []bool
	recon                 []float64
	// the TSDB's, summed over its families
	Samples     int     // raw samples stored over the run
	Series      int     // its series
	StoredShare float64 // Samples ÷ (Series × Seconds); 0 when nothing was stored
}

// Result is what the monitoring system holds of the metric over the run,
// as models/monitor's Replay reconstructs it: the points where scraped,
// the sampler's fill where it gave one, linear interpolation between
// points elsewhere; its Count is the seconds scraped.
func (f Family) Result() monitor.Result {
	return monitor.Reconstruct(slices.Clone(f.recon), slices.Clone(f.have), slices.Clone(f.filled), f.ScrapedSeconds)
}

// Accounting is a run's result.
type Accounting struct {
	Start, End time.Time // the run's first second and the end of its last
	Seconds    int
	Reloads    int
	Families   []Family // sorted by name
}

// Family returns the accounting of one family.
func (a Accounting) Family(name string) (Family, bool) {
	for _, f := range a.Families {
		if f.Name == name {
			return f, true
		}
	}
	return Family{}, false
}

// Check fails for a family whose stored share differs from the run's own
// by more than tol relative to the run's (0.1: 10 %), or that the TSDB
// holds nothing of while the run scraped it.
func (a Accounting) Check(tol float64) error {
	var errs []error
	for _, f := range a.Families {
		if f.ScrapedSeconds == 0 {
			if f.Samples > 0 {
				errs = append(errs, fmt.Errorf("%s: never scraped, yet %d samples stored", f.Name, f.Samples))
			}
			continue
		}
		if f.Series == 0 || math.IsNaN(f.StoredShare) {
			errs = append(errs, fmt.Errorf("%s: scraped %d s, but the TSDB holds no series", f.Name, f.ScrapedSeconds))
			continue
		}
		if d := math.Abs(f.StoredShare-f.RunShare) / f.RunShare; d > tol {
			errs = append(errs, fmt.Errorf("%s: stored share %.3f, the run's %.3f (%.1f %% off, tolerance %.0f %%)",
				f.Name, f.StoredShare, f.RunShare, 100*d, 100*tol))
		}
	}
	return errors.Join(errs...)
}

// String is a table of the accounting.
func (a Accounting) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d s from %s, %d reloads\n", a.Seconds, a.Start.UTC().Format(time.RFC3339), a.Reloads)
	fmt.Fprintf(&b, "%-40s %8s %6s %7s %8s %8s %8s\n", "metric", "scraped", "steps", "series", "samples", "run", "stored")
	for _, f := range a.Families {
		fmt.Fprintf(&b, "%-40s %7ds %6d %7d %8d %8.3f %8.3f\n", f.Name, f.ScrapedSeconds, f.Steps, f.Series, f.Samples, f.RunShare, f.StoredShare)
	}
	return b.String()
}

type famState struct {
	name    string
	sampler monitor.Sampler
	step    monitor.Step
	pos     int // seconds of step done
	on      bool
	acc     Family
}

// Do runs the samplers. Every family is scraped when the run starts and
// when it ends (on an error too).
func (r Run) Do(ctx context.Context) (acc Accounting, err error) {
	second, settle, logf := r.timing()
	n := int(r.Duration / time.Second)
	if n < 1 || r.Duration%time.Second != 0 {
		return acc, fmt.Errorf("sampler run: duration %v, want whole seconds ≥ 1", r.Duration)
	}
	if len(r.Samplers) == 0 {
		return acc, errors.New("sampler run: no samplers")
	}
	fams, all, err := r.families(n)
	if err != nil {
		return acc, err
	}
	if err := r.Client.Scrape(ctx, all); err != nil {
		return acc, err
	}
	defer func() {
		// leave every family scraped, whatever happened
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if rerr := r.Client.Scrape(rctx, all); rerr != nil && err == nil {
			err = fmt.Errorf("turning the families back on: %w", rerr)
		}
	}()

	start := r.Start
	if start.IsZero() {
		start = time.Now()
	}
	acc.Start, acc.Seconds = start, n
	countFrom := start
	for k := 0; k < n; k++ {
		at := start.Add(time.Duration(k) * second)
		if err := sleepUntil(ctx, at); err != nil {
			return acc, err
		}
		// the points of the second that just ended
		if k > 0 {
			for _, f := range fams {
				if f.on {
					r.point(ctx, f, k-1, at)
				}
			}
		}
		changes := map[string]bool{}
		for _, f := range fams {
			on, err := f.advance(k, n)
			if err != nil {
				return acc, err
			}
			if on != f.on {
				changes[f.name] = on
			}
		}
		if len(changes) > 0 {
			if err := r.Client.Scrape(ctx, familyStates(fams, changes)); err != nil {
				return acc, fmt.Errorf("second %d: %w", k, err)
			}
			if k == 0 {
				// the families were on until this reload took effect: a
				// scrape before it is not the run's
				countFrom = time.Now()
			}
			acc.Reloads++
			for _, f := range fams {
				if on, ok := changes[f.name]; ok {
					f.on = on
					f.acc.Toggles++
				}
			}
			logf("second %d: %s", k, describe(changes))
		}
		for _, f := range fams {
			if f.on {
				f.acc.ScrapedSeconds++
				f.acc.Scraped[k] = true
			}
			f.pos++
		}
	}
	end := start.Add(time.Duration(n) * second)
	acc.End = end
	if err := sleepUntil(ctx, end); err != nil {
		return acc, err
	}
	for _, f := range fams {
		if f.on {
			r.point(ctx, f, n-1, end)
		}
	}
	if err := sleepUntil(ctx, end.Add(settle)); err != nil {
		return acc, err
	}
	acc.Families, err = r.stored(ctx, fams, countFrom, end, n)
	return acc, err
}

// timing returns the length of a second, the wait before counting and the
// log, defaults filled in.
func (r Run) timing() (second, settle time.Duration, logf func(string, ...any)) {
	second = r.Second
	if second <= 0 {
		second = time.Second
	}
	settle = r.Settle
	if settle <= 0 {
		settle = 2 * second
	}
	logf = r.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return second, settle, logf
}

// families returns the state of each metric's sampler over n seconds,
// sorted by metric, and every family they scrape: each family belongs to
// one metric.
func (r Run) families(n int) ([]*famState, map[string]bool, error) {
	var fams []*famState
	all := map[string]bool{}
	for name, s := range r.Samplers {
		families := r.Families[name]
		if len(families) == 0 {
			families = []string{name}
		}
		for _, fam := range families {
			if err := prometheus.CheckFamily(fam); err != nil {
				return nil, nil, fmt.Errorf("sampler run: metric %s: %w", name, err)
			}
			if all[fam] {
				return nil, nil, fmt.Errorf("sampler run: family %s belongs to two metrics: one sampler decides when it is scraped", fam)
			}
			all[fam] = true
		}
		if s == nil {
			return nil, nil, fmt.Errorf("sampler run: metric %s has no sampler", name)
		}
		fams = append(fams, &famState{name: name, sampler: s, on: true, acc: Family{Name: name, Families: families,
			Scraped: make([]bool, n), have: make([]bool, n), filled: make([]bool, n), recon: make([]float64, n)}})
	}
	sort.Slice(fams, func(i, j int) bool { return fams[i].name < fams[j].name })
	return fams, all, nil
}

// advance asks the sampler for its next step once the current one is
// done, at second k of n, and reports whether the metric is scraped in k.
func (f *famState) advance(k, n int) (on bool, err error) {
	if f.pos >= f.step.Scrape+f.step.Skip {
		st := f.sampler.Next(k, f.acc.Points)
		if st.Scrape < 0 || st.Skip < 0 || st.Scrape+st.Skip < 1 {
			return false, fmt.Errorf("sampler of %s at second %d: step %+v, want Scrape, Skip ≥ 0 and Scrape+Skip ≥ 1", f.name, k, st)
		}
		if st.Fill != nil && len(st.Fill) != st.Skip {
			return false, fmt.Errorf("sampler of %s at second %d: %d fill values for %d skipped seconds", f.name, k, len(st.Fill), st.Skip)
		}
		f.step, f.pos = st, 0
		f.acc.Steps++
		for i, v := range st.Fill {
			if t := k + st.Scrape + i; t < n {
				f.acc.recon[t], f.acc.filled[t] = v, true
			}
		}
	}
	return f.pos < f.step.Scrape, nil
}

// familyStates turns the metrics' changes into their families'.
func familyStates(fams []*famState, changes map[string]bool) map[string]bool {
	states := map[string]bool{}
	for _, f := range fams {
		if on, ok := changes[f.name]; ok {
			for _, fam := range f.acc.Families {
				states[fam] = on
			}
		}
	}
	return states
}

// stored completes each metric's accounting with what the TSDB holds of
// its families in (from, end], over the n seconds of the run; on an error
// it returns the metrics done so far.
func (r Run) stored(ctx context.Context, fams []*famState, from, end time.Time, n int) ([]Family, error) {
	var out []Family
	for _, f := range fams {
		var total prometheus.Count
		for _, fam := range f.acc.Families {
			c, err := r.Client.Samples(ctx, fam, from, end)
			if err != nil {
				return out, err
			}
			total.Samples += c.Samples
			total.Series += c.Series
		}
		f.acc.Samples, f.acc.Series = total.Samples, total.Series
		f.acc.StoredShare = total.Share(float64(n))
		if total.Samples == 0 && total.Series == 0 {
			f.acc.StoredShare = 0 // nothing stored: no series to divide by
		}
		f.acc.RunShare = float64(f.acc.ScrapedSeconds) / float64(n)
		out = append(out, f.acc)
	}
	return out, nil
}

// point appends the family's value at the end of second k, when there is one.
func (r Run) point(ctx context.Context, f *famState, k int, at time.Time) {
	q := r.Values[f.name]
	if q == "" {
		q = "sum(" + f.acc.Families[0] + ")"
	}
	v, err := r.Client.Value(ctx, q, at)
	if err != nil || len(v) == 0 || math.IsNaN(v[0].V) {
		return
	}
	f.acc.Points = append(f.acc.Points, monitor.Point{T: k, V: v[0].V})
	f.acc.recon[k], f.acc.have[k] = v[0].V, true
}

func describe(changes map[string]bool) string {
	var parts []string
	for name, on := range changes {
		state := "off"
		if on {
			state = "on"
		}
		parts = append(parts, name+" "+state)
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
