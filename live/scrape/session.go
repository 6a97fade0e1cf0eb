package scrape

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/streamtwin/streamtwin/models/monitor"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/sim"

	"github.com/streamtwin/streamtwin/live/prometheus"
)

// LiveSuffix ends the sampler name of the live sampler's rows in
// tradeoff.csv ("adam-live"), beside the replay of the same sampler.
const LiveSuffix = "-live"

// Session is the monitoring side of a live run of a scenario with a
// monitoring section (streamtwin live run on live up --prometheus). Run
// starts with the run: it waits for the section's training part, fetches
// its ground truth from job node-truth, builds the live sampler of every
// metric on it (models/monitor's Spec.LiveSamplers, as the replay builds
// them) and runs them against job node for the rest of the run. After the
// run, Evaluate fetches the whole run's ground truth, replays every sampler
// of the section on it (EvaluateTruth: tradeoff.csv from real metrics) and
// adds the live sampler's own rows, measured: the samples share the TSDB
// stored and the error of what Prometheus held.
type Session struct {
	Client  Server
	Spec    monitor.Spec
	Seeds   sim.Seeds
	Seconds int // the run's duration
	Log     func(format string, args ...any)
	// Second is the length of one second (tests shorten it); default 1 s.
	Second time.Duration

	start time.Time
	acc   Accounting
	ran   bool
}

// Server is what a session needs of Prometheus (*prometheus.Client): a
// sampler run's, and range queries for the ground truth.
type Server interface {
	Scraper
	Series(ctx context.Context, query string, from, to time.Time, step time.Duration) ([]prometheus.Series, error)
}

var _ Server = (*prometheus.Client)(nil)

func (s *Session) second() time.Duration {
	if s.Second > 0 {
		return s.Second
	}
	return time.Second
}

func (s *Session) logf(format string, args ...any) {
	if s.Log != nil {
		s.Log(format, args...)
	}
}

// Query is a metric's PromQL for a scrape job ($job replaced).
func Query(spec monitor.Spec, i int, job string) string {
	return strings.ReplaceAll(spec.WithDefaults().Metrics[i].Query, "$job", job)
}

// Run is the session's part during the run, which started at start (the
// run's second k is (start+k s, start+k+1 s]).
func (s *Session) Run(ctx context.Context, start time.Time) error {
	spec := s.Spec.WithDefaults()
	s.start = start
	train := int(spec.Train)
	at := start.Add(time.Duration(train) * s.second())
	if err := sleepUntil(ctx, at.Add(s.second()/2)); err != nil {
		return err
	}
	truth, err := s.truth(ctx, int(spec.Warmup), train)
	if err != nil {
		return fmt.Errorf("monitoring: the training part's ground truth: %w", err)
	}
	samplers, closeAll, err := spec.LiveSamplers(truth, s.Seeds)
	if err != nil {
		return err
	}
	defer closeAll()
	r := Run{Client: s.Client, Samplers: map[string]monitor.Sampler{}, Families: map[string][]string{}, Values: map[string]string{},
		Start: at, Duration: time.Duration(s.Seconds-train) * time.Second, Second: s.second()}
	for i, m := range spec.Metrics {
		r.Samplers[m.Name], r.Families[m.Name], r.Values[m.Name] = samplers[i], m.Families, Query(spec, i, prometheus.NodeJob)
	}
	s.logf("monitoring: %s at %g turns scraping on and off from second %d to %d", spec.Live.Sampler, spec.Live.Param, train, s.Seconds)
	if s.acc, err = r.Do(ctx); err != nil {
		return fmt.Errorf("monitoring: the live sampler: %w", err)
	}
	s.ran = true
	return nil
}

// truth is every metric's value at seconds from … to−1 of the run, from
// job node-truth: each second's value is the query at its end. A second
// without one (a scrape lost) takes its predecessor's value; more than 5 %
// of them missing fails.
func (s *Session) truth(ctx context.Context, from, to int) ([][]float64, error) {
	spec := s.Spec.WithDefaults()
	out := make([][]float64, len(spec.Metrics))
	end := func(k int) time.Time { return s.start.Add(time.Duration(k+1) * s.second()) }
	for i, m := range spec.Metrics {
		q := Query(spec, i, prometheus.TruthJob)
		ss, err := s.Client.Series(ctx, q, end(from), end(to-1).Add(time.Millisecond), s.second())
		if err != nil {
			return nil, err
		}
		if len(ss) != 1 {
			return nil, fmt.Errorf("%s: %s: %d series, want 1", m.Name, q, len(ss))
		}
		vals := make([]float64, to-from)
		for j := range vals {
			vals[j] = math.NaN()
		}
		for _, p := range ss[0].Points {
			j := int(math.Round(float64(p.T.Sub(end(from))) / float64(s.second())))
			if j >= 0 && j < len(vals) {
				vals[j] = p.V
			}
		}
		missing := 0
		for j, v := range vals {
			if !math.IsNaN(v) {
				continue
			}
			missing++
			switch {
			case j > 0:
				vals[j] = vals[j-1]
			default:
				for _, w := range vals {
					if !math.IsNaN(w) {
						vals[j] = w
						break
					}
				}
			}
		}
		if missing > len(vals)/20 || math.IsNaN(vals[0]) {
			return nil, fmt.Errorf("%s: %d of %d seconds have no value of %s on Prometheus", m.Name, missing, len(vals), q)
		}
		if missing > 0 {
			s.logf("monitoring: %s: %d of %d seconds without a value; each took its predecessor's", m.Name, missing, len(vals))
		}
		out[i] = vals
	}
	return out, nil
}

// Evaluate is the session's part after the run (which wrote len(load) ≤
// Seconds samples): the evaluation of the run's real ground truth, with
// the live sampler's rows appended, and monitoring-live.csv.
func (s *Session) Evaluate(load []float64) (*monitor.Evaluation, map[string][]byte, error) {
	if !s.ran {
		return nil, nil, fmt.Errorf("monitoring: the live sampler did not run")
	}
	spec := s.Spec.WithDefaults()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// the truth covers the run's seconds (the load may miss the last one)
	if len(load) > s.Seconds {
		return nil, nil, fmt.Errorf("monitoring: %d s of load for a run of %d s", len(load), s.Seconds)
	}
	truth, err := s.truth(ctx, 0, s.Seconds)
	if err != nil {
		return nil, nil, fmt.Errorf("monitoring: the run's ground truth: %w", err)
	}
	ev, err := monitor.EvaluateTruth(spec, truth, s.Seeds, 0)
	if err != nil {
		return nil, nil, err
	}
	ss, _ := spec.Sampler(spec.Live.Sampler)
	train := int(spec.Train)
	part := make([][]float64, len(truth))
	for i := range truth {
		part[i] = ev.TrainPart(i)
	}
	// the live sampler replayed on the truth, to compare decisions
	replayed, closeAll, err := spec.LiveSamplers(part, s.Seeds)
	if err != nil {
		return nil, nil, err
	}
	defer closeAll()
	var rows []results.TradeoffRow
	var lines []liveLine
	for i, m := range spec.Metrics {
		books, ok := s.acc.Family(m.Name)
		if !ok || len(books.Scraped) != s.Seconds-train {
			return nil, nil, fmt.Errorf("monitoring: the live sampler's books of %s cover %d s, the run's evaluated part %d s", m.Name, len(books.Scraped), s.Seconds-train)
		}
		row := ev.Row(i, ss.Name+LiveSuffix, ss.ParamName(), spec.Live.Param, books.Result())
		// transmitted: what the TSDB stored
		row.SamplesShare, row.BytesShare = books.StoredShare, books.StoredShare
		rows = append(rows, row)
		rep := monitor.Replay(truth[i][train:], replayed[i])
		agree := 0
		for k, on := range books.Scraped {
			if on == rep.Scraped[k] {
				agree++
			}
		}
		lines = append(lines, liveLine{books: books, replayShare: float64(rep.Count) / float64(len(rep.Scraped)),
			agree: float64(agree) / float64(len(books.Scraped)), row: row})
	}
	ev.Rows = append(ev.Rows, ev.AllRow(rows))
	ev.Rows = append(ev.Rows, rows...)
	return ev, map[string][]byte{results.MonitoringLiveCSV: liveCSV(ss.Name, spec.Live.Param, s.acc, lines)}, nil
}

type liveLine struct {
	books       Family
	replayShare float64
	agree       float64
	row         results.TradeoffRow
}

// liveCSV is monitoring-live.csv: per metric, the live sampler's own books,
// the TSDB's, the error of what Prometheus held, and the sampler replayed
// on the same truth (its share, and the seconds whose scrape decision it
// shares with the live run).
func liveCSV(sampler string, param float64, acc Accounting, lines []liveLine) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"sampler", "param", "metric", "families", "seconds", "reloads", "steps", "toggles", "scraped_seconds", "run_share",
		"series", "samples", "stored_share", "points", "mae", "mape", "missed_peaks", "peaks", "replay_share", "decisions_agree"})
	num := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	for _, l := range lines {
		b := l.books
		w.Write([]string{sampler, num(param), b.Name, strings.Join(b.Families, "|"), strconv.Itoa(acc.Seconds), strconv.Itoa(acc.Reloads),
			strconv.Itoa(b.Steps), strconv.Itoa(b.Toggles), strconv.Itoa(b.ScrapedSeconds), num(b.RunShare),
			strconv.Itoa(b.Series), strconv.Itoa(b.Samples), num(b.StoredShare), strconv.Itoa(len(b.Points)),
			num(l.row.MAE), num(l.row.MAPE), strconv.Itoa(int(l.row.MissedPeaks)), strconv.Itoa(int(l.row.Peaks)),
			num(l.replayShare), num(l.agree)})
	}
	w.Flush()
	return buf.Bytes()
}

// Accounting is the live sampler's accounting (after Run).
func (s *Session) Accounting() Accounting { return s.acc }
