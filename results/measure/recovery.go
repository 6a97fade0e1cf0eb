package measure

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/statistics"
)

// RecoveryOptions tune DetectRecovery; zero values take the defaults.
type RecoveryOptions struct {
	Baseline float64 // s of samples before the fault that define pre-fault behaviour (default 300, Khaos's averaging window)
	Hold     int     // consecutive normal samples that end the anomaly (default 15, Khaos's TOLERANCE; recovery ends at the first of them)
	LagSlack float64 // a sample is normal when lag ≤ baseline lag quantile-95 × (1+LagSlack) + floor (default LagSlack 0.1)
	// LagFloor is the floor in records (default 1000), raised to 2 ×
	// ThrSlack × reference × sample interval: the backlog a stall that keeps
	// the throughput in its band (see ThrSlack) leaves at a sample's end. A
	// checkpoint's synchronous phase is such a stall; whether the lag sampled
	// at the interval end catches it depends on the trigger phase, which a
	// restart shifts, so the baseline may not show it.
	LagFloor float64
	// ThrSlack: and throughput within ±2·ThrSlack of the reference (default
	// 0.1, so 0.8…1.2): the steady band, ±ThrSlack, and a stall of up to
	// ThrSlack of the sample more (its dip, then the next sample's catch-up;
	// at a 10 s checkpoint interval the 0.11 s stall of a 150k/s job dips
	// every tenth sample by 11 %: a ±10 % band would end no recovery).
	// Throughput both too low (down) and too high (catching up) is
	// anomalous, like Khaos's detector. The reference is the sample's
	// InputRate when positive (a caught-up job consumes what arrives), else
	// the baseline mean throughput.
	ThrSlack float64
	// ResumedS, when > 0, is the time the job ran again (a reconfigured job
	// resubmitted from its savepoint): samples before it are anomalous and
	// the recovery ends no earlier. A stop-with-savepoint keeps processing
	// until the savepoint completes, so without it the first seconds after
	// the decision look normal and would end the anomaly at once.
	ResumedS float64
	// UntilS, when > 0, is when a fault that lasts (a freeze, a throttle,
	// storage refusing writes, …) ended: the recovery is confirmed only by
	// Hold normal samples after it, so an effect the fault has late in its
	// span (a checkpoint failure that fails the job) is not missed by a
	// normal run begun before it. A fault without a visible effect still
	// recovers in 0 s.
	UntilS float64
	// Latency is the column (one of LatencyKinds) averaged into
	// PreLatencyMs. "": the latency markers when the series has them (what
	// Khaos recorded), else the event-time p99, else the mean.
	Latency string
}

// Recovery is what DetectRecovery found for one fault.
type Recovery struct {
	// RecoveryS is the start of the closing run of normal samples − the fault
	// time; NaN if not recovered before the series ends. A sample covers the
	// interval that ends at its TimeS, so the run starts at the end of the
	// sample before it: with 1-s samples the recovery end is resolved to the
	// first whole second after the backlog is gone.
	FaultAtS, RecoveryS         float64
	PreThroughput, PreLatencyMs float64 // means over the baseline window (the latency column RecoveryOptions.Latency picks; NaN if none)
	PreLag                      float64 // records: 95 % quantile of the lag over the baseline window, the reference of the lag test
}

// minBaselineSamples is the fewest usable samples that define pre-fault
// behaviour; fewer make the quantile and the mean noise.
const minBaselineSamples = 10

func (o RecoveryOptions) withDefaults() (RecoveryOptions, error) {
	switch {
	case o.Baseline < 0, math.IsNaN(o.Baseline):
		return o, fmt.Errorf("RecoveryOptions.Baseline must be a positive number of seconds, got %v", o.Baseline)
	case o.Hold < 0:
		return o, fmt.Errorf("RecoveryOptions.Hold must be a positive number of samples, got %d", o.Hold)
	case o.LagSlack < 0, math.IsNaN(o.LagSlack):
		return o, fmt.Errorf("RecoveryOptions.LagSlack must be ≥ 0, got %v", o.LagSlack)
	case o.LagFloor < 0, math.IsNaN(o.LagFloor):
		return o, fmt.Errorf("RecoveryOptions.LagFloor must be ≥ 0 records, got %v", o.LagFloor)
	case o.ResumedS < 0, math.IsNaN(o.ResumedS):
		return o, fmt.Errorf("RecoveryOptions.ResumedS must be a time ≥ 0 s, got %v", o.ResumedS)
	case o.UntilS < 0, math.IsNaN(o.UntilS):
		return o, fmt.Errorf("RecoveryOptions.UntilS must be a time ≥ 0 s, got %v", o.UntilS)
	case o.ThrSlack < 0, o.ThrSlack >= 1, math.IsNaN(o.ThrSlack):
		return o, fmt.Errorf("RecoveryOptions.ThrSlack must be in [0, 1), got %v", o.ThrSlack)
	case o.Latency != "" && !slices.Contains(results.LatencyKinds, o.Latency):
		return o, fmt.Errorf("RecoveryOptions.Latency must be one of %s, got %q", strings.Join(results.LatencyKinds, ", "), o.Latency)
	}
	o.Baseline = cmp.Or(o.Baseline, 300)
	o.LagSlack = cmp.Or(o.LagSlack, 0.1)
	o.LagFloor = cmp.Or(o.LagFloor, 1000)
	o.ThrSlack = cmp.Or(o.ThrSlack, 0.1)
	o.Hold = cmp.Or(o.Hold, 15)
	return o, nil
}

// DetectRecovery measures the recovery from the fault at faultAtS the way
// the simulator ends one (lag back at its pre-fault level, models/flink), made
// robust to noise as Khaos's detector is: scanning from the first sample
// after the fault, the anomaly ends with opt.Hold consecutive normal samples
// (shorter normal runs are part of it); NaN throughput or lag is anomalous.
// samples must be sorted by TimeS. It is RecoveryDetector fed with the
// series: the one implementation of the rule.
func DetectRecovery(samples []results.Sample, faultAtS float64, opt RecoveryOptions) (Recovery, error) {
	rec := Recovery{FaultAtS: faultAtS, RecoveryS: math.NaN()}
	d, err := NewRecoveryDetector(opt)
	if err == nil {
		err = checkSeries(samples, faultAtS)
	}
	if err != nil {
		return rec, fmt.Errorf("results: recovery from the fault at %gs: %w", faultAtS, err)
	}
	first := sort.Search(len(samples), func(i int) bool { return samples[i].TimeS > faultAtS })
	// only the baseline window matters before the fault
	from := sort.Search(first, func(i int) bool { return samples[i].TimeS > faultAtS-d.o.Baseline })
	for _, s := range samples[from:first] {
		if _, err := d.Observe(s); err != nil {
			return rec, fmt.Errorf("results: recovery from the fault at %gs: %w", faultAtS, err)
		}
	}
	id, err := d.Begin(faultAtS, d.o.ResumedS, d.o.UntilS)
	if err != nil {
		return rec, fmt.Errorf("results: recovery from the fault at %gs: %w", faultAtS, err)
	}
	for _, s := range samples[first:] {
		ended, err := d.Observe(s)
		if err != nil {
			return rec, fmt.Errorf("results: recovery from the fault at %gs: %w", faultAtS, err)
		}
		for _, e := range ended {
			if e.ID == id {
				return e.Recovery, nil
			}
		}
	}
	for _, p := range d.Pending() {
		if p.ID == id {
			if p.Err != nil {
				return rec, fmt.Errorf("results: recovery from the fault at %gs: %w", faultAtS, p.Err)
			}
			return p.Recovery, nil
		}
	}
	return rec, nil
}

// RecoveryDetector is DetectRecovery's rule online: it is fed a run's
// samples in time order and told, between them, where faults and
// reconfigurations begin (Begin); Observe reports each recovery in the
// sample that ends its anomaly (the Hold-th normal one). It keeps only the
// samples of the last Baseline seconds (the baseline of a recovery begun
// next) and, per open recovery, its baseline figures and the length of the
// current run of normal samples: never the whole series, so a week-long run
// costs what a minute does.
type RecoveryDetector struct {
	o      RecoveryOptions
	ring   []results.Sample // ring[head:] are the samples in (lastT − Baseline, lastT]
	head   int
	lastT  float64 // time of the latest sample, −Inf before the first
	open   []*detecting
	nextID int
}

// detecting is one recovery the detector has not closed yet.
type detecting struct {
	id        int
	resumedS  float64 // samples before it are anomalous (RecoveryOptions.ResumedS)
	untilS    float64 // the fault lasted until then (RecoveryOptions.UntilS)
	rec       Recovery
	started   bool    // a sample after the start came, so the baseline is taken
	err       error   // why the baseline could not be taken: it never recovers
	intervalS float64 // mean sample spacing of the baseline, s
	run       int     // consecutive normal samples so far
	after     int     // of them, those after untilS
	runFrom   float64 // time of the sample before the run: the recovery's end if the run lasts
	endS      float64 // when it ended, once it has
}

// DetectedRecovery is a recovery the detector closed (or, from Pending, one
// still open: RecoveryS NaN). ID is what Begin returned; Err says why a
// recovery cannot be measured (too short a baseline): it stays open.
type DetectedRecovery struct {
	ID int
	Recovery
	// EndS is when the recovery ended: the end of the sample before the
	// closing run, or the resume (FaultAtS + RecoveryS without its rounding).
	EndS float64
	Err  error
}

// NewRecoveryDetector starts a detector with the rule's options (as
// DetectRecovery takes them; ResumedS is Begin's, per recovery).
func NewRecoveryDetector(opt RecoveryOptions) (*RecoveryDetector, error) {
	o, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	return &RecoveryDetector{o: o, lastT: math.Inf(-1)}, nil
}

// Begin opens the recovery from a fault or reconfiguration at atS (s), no
// earlier than the latest sample fed: the samples up to atS are its
// baseline, the ones after it are scanned. resumedS > 0 is when a
// reconfigured job ran again: the recovery ends no earlier (see
// RecoveryOptions.ResumedS); untilS > 0 is when a lasting fault ended (see
// RecoveryOptions.UntilS). It returns the recovery's ID.
func (d *RecoveryDetector) Begin(atS, resumedS, untilS float64) (int, error) {
	switch {
	case math.IsNaN(atS) || math.IsInf(atS, 0):
		return 0, fmt.Errorf("a recovery must begin at a finite time, got %v", atS)
	case atS < d.lastT:
		return 0, fmt.Errorf("a recovery begins at %gs, before the latest sample (%gs): begin it before feeding the samples after its start", atS, d.lastT)
	case resumedS < 0 || math.IsNaN(resumedS):
		return 0, fmt.Errorf("the resume time must be ≥ 0 s, got %v", resumedS)
	case untilS < 0 || math.IsNaN(untilS):
		return 0, fmt.Errorf("the fault's end must be ≥ 0 s, got %v", untilS)
	}
	d.nextID++
	d.open = append(d.open, &detecting{id: d.nextID, resumedS: resumedS, untilS: untilS,
		rec: Recovery{FaultAtS: atS, RecoveryS: math.NaN(), PreThroughput: math.NaN(), PreLatencyMs: math.NaN(), PreLag: math.NaN()}})
	return d.nextID, nil
}

// Observe feeds the next sample (TimeS must increase) and returns the
// recoveries it closed.
func (d *RecoveryDetector) Observe(s results.Sample) ([]DetectedRecovery, error) {
	if math.IsNaN(s.TimeS) || math.IsInf(s.TimeS, 0) {
		return nil, fmt.Errorf("a sample has time_s %v; times must be finite", s.TimeS)
	}
	if s.TimeS <= d.lastT {
		return nil, fmt.Errorf("samples are not sorted by time_s: t=%gs follows t=%gs; sort them and drop duplicates", s.TimeS, d.lastT)
	}
	var ended []DetectedRecovery
	keep := d.open[:0]
	for _, r := range d.open {
		if s.TimeS > r.rec.FaultAtS {
			if !r.started {
				// the ring holds every sample up to the start
				r.started = true
				r.intervalS, r.err = r.rec.baseline(d.ring[d.head:], r.rec.FaultAtS, d.o.Baseline, d.o.Latency)
			}
			if r.err == nil && d.step(r, s) {
				ended = append(ended, DetectedRecovery{ID: r.id, Recovery: r.rec, EndS: r.endS})
				continue
			}
		}
		keep = append(keep, r)
	}
	clear(d.open[len(keep):])
	d.open = keep
	d.lastT = s.TimeS
	// drop what no later baseline reaches, moving the window down once
	// half the array is spent: no allocation once it has grown to the window
	for d.head < len(d.ring) && d.ring[d.head].TimeS <= s.TimeS-d.o.Baseline {
		d.head++
	}
	if d.head > len(d.ring)/2 {
		d.ring = d.ring[:copy(d.ring, d.ring[d.head:])]
		d.head = 0
	}
	d.ring = append(d.ring, s)
	return ended, nil
}

// step applies the rule to one sample after r's start: normal samples extend
// the run, anything else resets it; the Hold-th (and the Hold-th after a
// lasting fault's end) closes the recovery at the end of the sample before
// the run (no earlier than the resume).
func (d *RecoveryDetector) step(r *detecting, s results.Sample) bool {
	if s.TimeS < r.resumedS || !d.normal(r, s) {
		r.run, r.after = 0, 0
		return false
	}
	if r.run++; r.run == 1 {
		r.runFrom = d.lastT
	}
	if s.TimeS > r.untilS {
		r.after++
	}
	if r.run < d.o.Hold || r.after < d.o.Hold {
		return false
	}
	r.rec.RecoveryS = math.Max(0, math.Max(r.runFrom, r.resumedS)-r.rec.FaultAtS)
	r.endS = math.Max(r.rec.FaultAtS, math.Max(r.runFrom, r.resumedS))
	return true
}

// normal: lag within its pre-fault level and throughput within the band
// around the input (the baseline throughput when the input is unknown).
func (d *RecoveryDetector) normal(r *detecting, s results.Sample) bool {
	ref := r.rec.PreThroughput
	if s.InputRate > 0 {
		ref = s.InputRate
	}
	o := d.o
	// the steady band, ±ThrSlack, and a stall of up to ThrSlack of the
	// sample more: a checkpoint's synchronous phase dips one sample and the
	// next catches up. Whether a sample's end catches it depends on the
	// trigger phase, which a restart shifts, so the baseline may not show
	// it (at 10 s intervals it dips every tenth sample: a band without it
	// would end no recovery)
	w := 2 * o.ThrSlack
	lagMax := r.rec.PreLag*(1+o.LagSlack) + math.Max(o.LagFloor, w*ref*r.intervalS)
	// NaN fails every comparison, so missing values are anomalous.
	return s.Lag <= lagMax && s.Throughput >= (1-w)*ref && s.Throughput <= (1+w)*ref
}

// Pending returns the recoveries still open, in the order they began:
// RecoveryS is NaN, the Pre* figures are set once a sample after the start
// came, Err says why one cannot end.
func (d *RecoveryDetector) Pending() []DetectedRecovery {
	out := make([]DetectedRecovery, len(d.open))
	for i, r := range d.open {
		out[i] = DetectedRecovery{ID: r.id, Recovery: r.rec, Err: r.err}
	}
	return out
}

// undecidedAfter is the time after which a row's place or a sample's
// recovering flag is not known yet. An open recovery in a run of normal
// samples ends at the run's start (no earlier than its own start and its
// resume) if the run lasts; one in no run may end at the latest sample, if
// the next one starts a run that lasts. The samples up to there are in it
// either way. +Inf when no open recovery can end.
func (d *RecoveryDetector) undecidedAfter() float64 {
	t := math.Inf(1)
	for _, r := range d.open {
		if r.err != nil {
			continue // cannot be measured: open to the end
		}
		from := d.lastT
		if r.run > 0 {
			from = r.runFrom
		}
		t = math.Min(t, math.Max(r.rec.FaultAtS, math.Max(from, r.resumedS)))
	}
	return t
}

// RowWriter takes a run's rows in time order: a RunWriter, a twin Sink.
type RowWriter interface {
	WriteSample(results.Sample) error
	WriteEvent(results.Event) error
}

// RecoveryStream passes a run's rows, in time order, to a writer with the
// recoveries one RecoveryDetector finds in them: the recovery part of
// events.parquet and timeseries.parquet, the same for every backend. A fault
// event begins a recovery; Begin begins a reconfiguration's (its start, the
// stop request, is known only once the job runs again). Each sample's
// Recovering flag is set to whether it lies in a recovery (after its start,
// up to its end); a recovered event (DurationS = the recovery time) is
// inserted where each recovery ended; the run_end event first closes the
// recoveries still open as unrecovered, dated at the run's end with the
// censored time since their start. Rows whose flag or place is not settled
// yet, those after the start of a run of normal samples that may end a
// recovery, are held (at most Hold samples and the events among them); the
// others go through at once.
type RecoveryStream struct {
	det   *RecoveryDetector
	out   RowWriter
	held  []streamRow
	spans []recoverySpan
}

// recoverySpan is a recovery as the samples' flag needs it: (atS, endS],
// endS +Inf while open.
type recoverySpan struct {
	id     int
	atS    float64
	endS   float64
	reason string
}

type streamRow struct {
	isSample bool
	s        results.Sample
	e        results.Event
}

func (r streamRow) time() float64 {
	if r.isSample {
		return r.s.TimeS
	}
	return r.e.TimeS
}

// NewRecoveryStream starts a stream into out with the detector's options.
func NewRecoveryStream(opt RecoveryOptions, out RowWriter) (*RecoveryStream, error) {
	d, err := NewRecoveryDetector(opt)
	if err != nil {
		return nil, err
	}
	return &RecoveryStream{det: d, out: out}, nil
}

// Begin begins a recovery at atS (no earlier than the latest sample passed)
// that ends no earlier than resumedS (0: none), for the reason its recovered
// or unrecovered event will carry ("reconfiguration: …" for a
// reconfiguration, see IsReconfiguration).
func (st *RecoveryStream) Begin(atS, resumedS float64, reason string) error {
	return st.begin(atS, resumedS, 0, reason)
}

// begin opens a recovery that a fault lasting until untilS (0: a fault of
// an instant) may still disturb.
func (st *RecoveryStream) begin(atS, resumedS, untilS float64, reason string) error {
	id, err := st.det.Begin(atS, resumedS, untilS)
	if err != nil {
		return fmt.Errorf("results: %s: %w", reason, err)
	}
	st.spans = append(st.spans, recoverySpan{id: id, atS: atS, endS: math.Inf(1), reason: reason})
	return nil
}

// Sample passes one sample; the error is the writer's first (the rows
// released with it are all written, whatever it says).
func (st *RecoveryStream) Sample(s results.Sample) error {
	ended, err := st.det.Observe(s)
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	if len(ended) == 0 && len(st.held) == 0 && s.TimeS <= st.det.undecidedAfter() {
		// nothing waits before it and its flag is settled, as for most
		// samples of a long run: straight through, without the queue
		s.Recovering = st.recovering(s.TimeS)
		err := st.out.WriteSample(s)
		st.forget()
		return err
	}
	st.hold(streamRow{isSample: true, s: s})
	for _, r := range ended {
		i := st.span(r.ID)
		st.spans[i].endS = r.EndS
		d := r.RecoveryS
		st.hold(streamRow{e: results.Event{TimeS: r.EndS, Kind: results.KindRecovered, DurationS: &d, Reason: st.spans[i].reason}})
	}
	return st.release(st.det.undecidedAfter())
}

// Event passes one event: a fault begins a recovery, run_end closes the
// run (every row is written, the open recoveries as unrecovered first).
func (st *RecoveryStream) Event(e results.Event) error {
	if e.Kind == results.KindRunEnd {
		// last, whatever came before (a TaskManager that registered a
		// moment after a live run's end)
		for _, p := range st.det.Pending() {
			i := st.span(p.ID)
			d := math.Max(0, e.TimeS-p.FaultAtS)
			st.held = append(st.held, streamRow{e: results.Event{TimeS: e.TimeS, Kind: results.KindUnrecovered, DurationS: &d, Reason: st.spans[i].reason}})
		}
		st.held = append(st.held, streamRow{e: e})
		return st.release(math.Inf(1))
	}
	st.hold(streamRow{e: e})
	if e.Kind == results.KindFault {
		until := 0.0
		if e.DurationS != nil && *e.DurationS > 0 { // a fault that lasts
			until = e.TimeS + *e.DurationS
		}
		if err := st.begin(e.TimeS, 0, until, e.Reason); err != nil {
			return err
		}
	}
	return st.release(st.det.undecidedAfter())
}

func (st *RecoveryStream) span(id int) int {
	for i, sp := range st.spans {
		if sp.id == id {
			return i
		}
	}
	panic("results: RecoveryStream lost the span of a recovery") // Begin adds every one
}

// hold queues a row after the held rows at or before its time: a recovered
// event is dated back to the end of its recovery.
func (st *RecoveryStream) hold(r streamRow) {
	i := len(st.held)
	for i > 0 && st.held[i-1].time() > r.time() {
		i--
	}
	st.held = slices.Insert(st.held, i, r)
}

// release writes the held rows up to time until, the samples with their
// recovering flag, and forgets the recoveries no later sample can lie in.
func (st *RecoveryStream) release(until float64) error {
	var first error
	n := 0
	for ; n < len(st.held) && st.held[n].time() <= until; n++ {
		r := &st.held[n] // a row is a few hundred bytes: not copied per sample
		var err error
		if r.isSample {
			r.s.Recovering = st.recovering(r.s.TimeS)
			err = st.out.WriteSample(r.s)
		} else {
			err = st.out.WriteEvent(r.e)
		}
		if first == nil {
			first = err
		}
	}
	// what is still undecided stays (a run of normal samples not yet
	// closed, longer after a lasting fault): move it down
	rest := copy(st.held, st.held[n:])
	clear(st.held[rest:])
	st.held = st.held[:rest]
	st.forget()
	return first
}

// forget drops the recoveries no sample still to be written can lie in: it
// comes at or after the first held row, or after the latest sample.
func (st *RecoveryStream) forget() {
	if len(st.spans) == 0 {
		return
	}
	cutoff := st.det.lastT
	if len(st.held) > 0 {
		cutoff = math.Min(cutoff, st.held[0].time())
	}
	st.spans = slices.DeleteFunc(st.spans, func(sp recoverySpan) bool { return sp.endS < cutoff })
}

func (st *RecoveryStream) recovering(t float64) bool {
	for _, sp := range st.spans {
		if t > sp.atS && t <= sp.endS {
			return true
		}
	}
	return false
}

func checkSeries(samples []results.Sample, faultAtS float64) error {
	if len(samples) == 0 {
		return errors.New("no samples")
	}
	for i, s := range samples {
		if math.IsNaN(s.TimeS) || math.IsInf(s.TimeS, 0) {
			return fmt.Errorf("sample %d has time_s %v; times must be finite", i, s.TimeS)
		}
		if i > 0 && s.TimeS <= samples[i-1].TimeS {
			return fmt.Errorf("samples are not sorted by time_s: sample %d (t=%gs) follows t=%gs; sort them and drop duplicates", i, s.TimeS, samples[i-1].TimeS)
		}
	}
	if lo, hi := samples[0].TimeS, samples[len(samples)-1].TimeS; math.IsNaN(faultAtS) || faultAtS < lo || faultAtS >= hi {
		return fmt.Errorf("the fault lies outside the series (samples from %gs to %gs, and one must follow the fault)", lo, hi)
	}
	return nil
}

// baseline fills the Pre* fields from the samples of the window
// (faultAtS−window, faultAtS] that have both throughput and lag, and returns
// their mean spacing.
func (rec *Recovery) baseline(before []results.Sample, faultAtS, window float64, latency string) (intervalS float64, err error) {
	var thr, lags, times []float64
	lat := map[string][]float64{}
	for _, s := range before {
		if s.TimeS <= faultAtS-window || math.IsNaN(s.Throughput) || math.IsNaN(s.Lag) {
			continue
		}
		thr = append(thr, s.Throughput)
		lags = append(lags, s.Lag)
		times = append(times, s.TimeS)
		for _, k := range results.LatencyKinds {
			lat[k] = statistics.AppendFinite(lat[k], s.Latency(k))
		}
	}
	if len(thr) < minBaselineSamples {
		return 0, fmt.Errorf("only %d samples with throughput and lag in the %gs before the fault, need at least %d (start the series earlier or shorten RecoveryOptions.Baseline)",
			len(thr), window, minBaselineSamples)
	}
	rec.PreThroughput = statistics.FiniteMean(thr)
	rec.PreLag = statistics.Quantile(lags, 0.95)
	if latency == "" {
		// what Khaos's avgLat is: latency markers, else the event-time p99
		latency = "mean"
		for _, k := range []string{"marker", "p99"} {
			if len(lat[k]) > 0 {
				latency = k
				break
			}
		}
	}
	rec.PreLatencyMs = statistics.FiniteMean(lat[latency])
	return (times[len(times)-1] - times[0]) / float64(len(times)-1), nil
}
