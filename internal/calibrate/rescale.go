package calibrate

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/optimize"

	"github.com/streamtwin/streamtwin/internal/run"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/internal/twin"
	"github.com/streamtwin/streamtwin/models/flink"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
	"github.com/streamtwin/streamtwin/sim"
	"github.com/streamtwin/streamtwin/workloads"
)

// The rescale fit: the twin's rescale parameters (job.rescale, checkpoint
// mode) fitted to measured rescales, such as `make live-rescale-profile`
// measures them (`streamtwin results rescales`), by simulating the measured
// schedule on the twin. Each direction has its own two parameters: the
// delay from the request to the restart and the deploy time of the
// restarted job, fitted to the measured delays and downtimes; the state
// restore and the catch-up follow from the rest of the scenario, so the
// recovery is predicted, not fitted.

// RescaleParams are the parameters the rescale fit fits, up then down.
// Their ranges are physical: a rescale waits at most a few checkpoint
// intervals and a resource timeout (Flink's rescale-trigger.max-delay,
// resource-wait-timeout), and a deployment of a few tasks takes seconds.
var RescaleParams = []Param{
	{Name: "up_delay", Path: "job.rescale.up_delay", Unit: "s", Lo: 0, Hi: 60, Typical: [2]float64{0, 10}, scale: 1,
		Doc:   "a scale-up's wait from the request to the restart (new TaskManagers start and register meanwhile)",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Rescale.UpDelay })},
	{Name: "up_deploy", Path: "job.rescale.up_deploy", Unit: "s", Lo: 0, Hi: 30, Typical: [2]float64{0, 5}, scale: 1,
		Doc:   "a scale-up's task deployment after the restart, before the state restore",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Rescale.UpDeploy })},
	{Name: "down_delay", Path: "job.rescale.down_delay", Unit: "s", Lo: 0, Hi: 60, Typical: [2]float64{0, 10}, scale: 1,
		Doc:   "a scale-down's wait from the request to the restart",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Rescale.DownDelay })},
	{Name: "down_deploy", Path: "job.rescale.down_deploy", Unit: "s", Lo: 0, Hi: 30, Typical: [2]float64{0, 5}, scale: 1,
		Doc:   "a scale-down's task deployment after the restart, before the state restore",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Rescale.DownDeploy })},
}

// Directions of a rescale, as the report names them.
const (
	DirectionUp   = "up"
	DirectionDown = "down"
)

// directionOf names r's direction.
func directionOf(r measure.Rescale) string {
	if r.Up() {
		return DirectionUp
	}
	return DirectionDown
}

// directionParams are the two parameters of direction d.
func directionParams(d string) []Param {
	if d == DirectionUp {
		return RescaleParams[:2]
	}
	return RescaleParams[2:]
}

// RescaleOptions tune the rescale fit.
type RescaleOptions struct {
	// MaxEvaluations bounds the simulations of the deploy time's
	// Nelder–Mead per direction and fit (default 100); the delay scan
	// takes one per delayStep up to the longest measured delay.
	MaxEvaluations int
	// Workers is how many leave-one-out folds run at once (default 1).
	Workers int
	// Progress, if set, is called after every simulation with the count.
	Progress func(done int)
}

func (o RescaleOptions) withDefaults() RescaleOptions {
	if o.MaxEvaluations <= 0 {
		o.MaxEvaluations = 100
	}
	if o.Workers <= 0 {
		o.Workers = 1
	}
	return o
}

// RescaleRun is the measured schedule as a twin run on base: its job,
// Kafka and cluster, in checkpoint mode, starting at the first rescale's
// parallelism, each rescale an action at its time, under the static policy
// and without faults. The table gives the input rate only at the
// decisions, so the rate changes halfway between two decisions whose rates
// differ. The run ends one mean gap between decisions after the last one
// (the schedule's own spacing, which left the live job time to catch up).
func RescaleRun(base scenario.Scenario, measured []measure.Rescale) (scenario.Scenario, *scenario.Schedule, error) {
	if len(measured) < 2 {
		return scenario.Scenario{}, nil, fmt.Errorf("the rescale fit needs at least 2 measured rescales, got %d", len(measured))
	}
	ms := sortedRescales(measured)
	for i := 1; i < len(ms); i++ {
		if ms[i].From != ms[i-1].To {
			return scenario.Scenario{}, nil, fmt.Errorf("measured rescale at %g s starts from parallelism %d, but the one before (at %g s) went to %d: the table must be one run's schedule, as `streamtwin results rescales` writes it",
				ms[i].AtS, ms[i].From, ms[i-1].AtS, ms[i-1].To)
		}
		if ms[i].AtS <= ms[i-1].AtS {
			return scenario.Scenario{}, nil, fmt.Errorf("two measured rescales at %g s", ms[i].AtS)
		}
	}
	sc := base
	sc.Job.Rescale.Mode = flink.RescaleCheckpoint
	sc.Job.Parallelism = ms[0].From
	sc.Policy = scenario.PolicySpec{Name: "static"}
	sc.Faults, sc.Variants = nil, nil
	last := ms[len(ms)-1].AtS
	gap := (last - ms[0].AtS) / float64(len(ms)-1)
	end := last + gap
	sc.Duration = durationOf(end)
	sc.Actions = nil
	for _, r := range ms {
		p := r.To
		sc.Actions = append(sc.Actions, scenario.Action{At: durationOf(r.AtS), Parallelism: &p})
	}
	rates := make([]float64, int(math.Ceil(end))+1)
	k := 0
	for i := range rates {
		t := float64(i)
		for k+1 < len(ms) && t >= (ms[k].AtS+ms[k+1].AtS)/2 {
			k++
		}
		rates[i] = ms[k].InputRate
	}
	return sc, &scenario.Schedule{Rates: workloads.NewSchedule(rates), Actions: sc.Actions}, nil
}

func sortedRescales(measured []measure.Rescale) []measure.Rescale {
	ms := append([]measure.Rescale(nil), measured...)
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].AtS < ms[j].AtS })
	return ms
}

// rescaleSink keeps a run's rows for measure.Rescales.
type rescaleSink struct {
	samples []results.Sample
	events  []results.Event
}

func (s *rescaleSink) WriteSample(x results.Sample) error {
	s.samples = append(s.samples, x)
	return nil
}
func (s *rescaleSink) WriteEvent(e results.Event) error { s.events = append(s.events, e); return nil }

// SimulateRescales runs the measured schedule on sc (RescaleRun) and
// returns, per measured rescale in time order, the twin's: its delay,
// downtime and recovery as `streamtwin results rescales` reads them from a
// run (measure.Rescales). A rescale the twin did not carry out has NaN
// delay, downtime and recovery.
func SimulateRescales(base scenario.Scenario, measured []measure.Rescale) ([]measure.Rescale, error) {
	sc, sched, err := RescaleRun(base, measured)
	if err != nil {
		return nil, err
	}
	sink := &rescaleSink{}
	if _, err := run.Stream(context.Background(), twin.Backend{}, sc, sched, sink); err != nil {
		return nil, err
	}
	got := measure.Rescales(sink.samples, sink.events)
	ms := sortedRescales(measured)
	out := make([]measure.Rescale, len(ms))
	for i, m := range ms {
		out[i] = measure.Rescale{AtS: m.AtS, From: m.From, To: m.To, InputRate: m.InputRate, DelayS: math.NaN(), DowntimeS: math.NaN(), RecoveryS: math.NaN()}
		for _, g := range got {
			// actions fire at their time; samples date a decision to the
			// microsecond
			if math.Abs(g.AtS-m.AtS) < 1e-3 && g.To == m.To {
				out[i].DelayS, out[i].DowntimeS, out[i].RecoveryS = g.DelayS, g.DowntimeS, g.RecoveryS
			}
		}
	}
	return out, nil
}

// rescaleLoss is the mean over the used rescales of the squared errors
// (s²) of delay and downtime, the two quantities the two parameters of a
// direction set; the recovery (downtime plus catch-up) follows from the
// twin's capacity and the input read again, and is predicted, not fitted,
// so that its held-out error tests the model. A rescale the twin did not
// carry out makes the loss +Inf.
func rescaleLoss(measured, predicted []measure.Rescale, use []bool) float64 {
	var sum float64
	n := 0
	for i, m := range measured {
		if !use[i] {
			continue
		}
		p := predicted[i]
		for _, d := range [][2]float64{{m.DelayS, p.DelayS}, {m.DowntimeS, p.DowntimeS}} {
			if math.IsNaN(d[1]) {
				return math.Inf(1)
			}
			sum += (d[1] - d[0]) * (d[1] - d[0])
		}
		n++
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// delayStep is the grid on which the delays are scanned (s): the
// simulated delay is the parameter plus the wait for the next completed
// checkpoint, so the loss is a staircase in it (flat between two
// checkpoint completions) that a simplex cannot descend.
const delayStep = 0.1

// fitRescales fits each direction's two parameters on the used rows of
// that direction, up first, then down with up's fitted values: the delay
// by a scan from 0 to the direction's longest measured delay (the twin's
// delay is at least the parameter), taking the middle of the widest stretch
// at the least loss, since every delay on it fits equally; then the deploy
// time by Nelder–Mead (the downtime is smooth in it); then the delay again
// at the fitted deploy time. It returns base with the fitted values and
// the summed loss of the two directions on the used rows.
func fitRescales(base scenario.Scenario, ms []measure.Rescale, use []bool, o RescaleOptions, count *atomic.Int64) (scenario.Scenario, float64, error) {
	sc := base
	loss := 0.0
	for _, dir := range []string{DirectionUp, DirectionDown} {
		ps := directionParams(dir)
		rows := make([]bool, len(ms))
		any, longest := false, 0.0
		for i, m := range ms {
			rows[i] = use[i] && directionOf(m) == dir
			if rows[i] {
				any, longest = true, math.Max(longest, m.DelayS)
			}
		}
		if !any {
			continue // nothing measured in this direction: the base's values stay
		}
		var simErr error
		lossAt := func(s scenario.Scenario) float64 {
			pred, err := SimulateRescales(s, ms)
			n := count.Add(1)
			if o.Progress != nil {
				o.Progress(int(n))
			}
			if err != nil {
				if simErr == nil {
					simErr = err
				}
				return math.Inf(1)
			}
			return rescaleLoss(ms, pred, rows)
		}
		delay, deploy := ps[0], ps[1]
		scan := func() float64 {
			return scanDelay(math.Min(longest, delay.Hi), func(v float64) float64 {
				s := sc
				delay.Set(&s, v)
				return lossAt(s)
			})
		}
		delay.Set(&sc, scan())
		if simErr != nil {
			return scenario.Scenario{}, 0, simErr
		}
		settings := &optimize.Settings{
			FuncEvaluations: o.MaxEvaluations,
			Converger:       &optimize.FunctionConverge{Absolute: 1e-6, Relative: 1e-6, Iterations: 8},
		}
		f := func(x []float64) float64 {
			s := sc
			deploy.Set(&s, deploy.fromFree(x[0]))
			return lossAt(s)
		}
		res, err := optimize.Minimize(optimize.Problem{Func: f}, []float64{deploy.toFree(deploy.Get(&sc))}, settings, &optimize.NelderMead{})
		if simErr != nil {
			return scenario.Scenario{}, 0, simErr
		}
		if err != nil && res == nil {
			return scenario.Scenario{}, 0, fmt.Errorf("optimiser (%s deploy): %w", dir, err)
		}
		deploy.Set(&sc, deploy.fromFree(res.X[0]))
		delay.Set(&sc, scan())
		l := lossAt(sc)
		if simErr != nil {
			return scenario.Scenario{}, 0, simErr
		}
		loss += l
	}
	return sc, loss, nil
}

// scanDelay evaluates loss on 0, delayStep, … up to hi and returns the
// middle of the widest run of consecutive grid points at the least loss
// (the first such run on a tie): a staircase's whole step fits equally,
// and its middle is the farthest from either edge.
func scanDelay(hi float64, loss func(float64) float64) float64 {
	n := int(math.Floor(hi/delayStep+1e-9)) + 1
	ls := make([]float64, n)
	best := math.Inf(1)
	for i := range ls {
		ls[i] = loss(float64(i) * delayStep)
		best = math.Min(best, ls[i])
	}
	tol := 1e-9 * math.Max(1, math.Abs(best))
	from, width := 0, 0
	for i := 0; i < n; {
		if ls[i]-best > tol {
			i++
			continue
		}
		j := i
		for j < n && ls[j]-best <= tol {
			j++
		}
		if j-i > width {
			from, width = i, j-i
		}
		i = j
	}
	return (float64(from) + float64(width-1)/2) * delayStep
}

// RescaleRow is one measured rescale with the twin's prediction after the
// fit on all rows (Fitted) and held out of the fit (Held), and the
// baseline's held-out prediction: the mean of the other rescales of its
// direction.
type RescaleRow struct {
	Measured, Fitted, Held, Mean measure.Rescale
}

// Direction is the row's direction, up or down.
func (r RescaleRow) Direction() string { return directionOf(r.Measured) }

// RescaleResult is a finished rescale fit.
type RescaleResult struct {
	Values      []Value           // the fit on every row
	Scenario    scenario.Scenario // base with them
	Loss        float64           // rescaleLoss on every row, per direction summed (s²)
	Rows        []RescaleRow      // in time order
	Evaluations int               // simulations, the folds' included
}

// CalibrateRescales fits the rescale parameters to every measured rescale,
// then once per rescale with that one left out (leave-one-out) to predict
// it, and predicts it by the baseline too.
func CalibrateRescales(base scenario.Scenario, measured []measure.Rescale, o RescaleOptions) (*RescaleResult, error) {
	o = o.withDefaults()
	ms := sortedRescales(measured)
	if _, _, err := RescaleRun(base, ms); err != nil {
		return nil, err
	}
	var count atomic.Int64
	all := make([]bool, len(ms))
	for i := range all {
		all[i] = true
	}
	fitted, loss, err := fitRescales(base, ms, all, o, &count)
	if err != nil {
		return nil, err
	}
	pred, err := SimulateRescales(fitted, ms)
	if err != nil {
		return nil, err
	}
	r := &RescaleResult{Scenario: fitted, Loss: loss, Rows: make([]RescaleRow, len(ms))}
	for _, p := range RescaleParams {
		v := p.Get(&fitted)
		r.Values = append(r.Values, Value{Param: p, Initial: p.Get(&base), Fitted: v, Flags: p.Flags(v)})
	}
	for i := range ms {
		r.Rows[i] = RescaleRow{Measured: ms[i], Fitted: pred[i], Mean: meanOfOthers(ms, i)}
	}
	// the folds: independent, so they may run at once; each writes only
	// its own row, and the same seed gives the same numbers in any order
	errs := make([]error, len(ms))
	sem := make(chan struct{}, o.Workers)
	var wg sync.WaitGroup
	for i := range ms {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			use := append([]bool(nil), all...)
			use[i] = false
			sc, _, err := fitRescales(base, ms, use, o, &count)
			if err != nil {
				errs[i] = fmt.Errorf("fold without the rescale at %g s: %w", ms[i].AtS, err)
				return
			}
			p, err := SimulateRescales(sc, ms)
			if err != nil {
				errs[i] = err
				return
			}
			r.Rows[i].Held = p[i]
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	r.Evaluations = int(count.Load())
	return r, nil
}

// meanOfOthers is the baseline's prediction of rescale i: the mean delay,
// downtime and recovery of the other measured rescales of its direction
// (NaN with none); a recovery never measured is left out of the mean.
func meanOfOthers(ms []measure.Rescale, i int) measure.Rescale {
	out := ms[i]
	var d, w, rec []float64
	for j, m := range ms {
		if j == i || m.Up() != ms[i].Up() {
			continue
		}
		d, w = append(d, m.DelayS), append(w, m.DowntimeS)
		if !math.IsNaN(m.RecoveryS) {
			rec = append(rec, m.RecoveryS)
		}
	}
	out.DelayS, out.DowntimeS, out.RecoveryS = mean(d), mean(w), mean(rec)
	return out
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// RescaleErrors are the mean absolute errors (s) of one predictor's
// held-out predictions of one direction's rescales (or of all).
type RescaleErrors struct {
	N                            int
	DelayS, DowntimeS, RecoveryS float64
}

// HeldOutErrors are the held-out mean absolute errors of the twin (twin)
// and of the baseline (mean) over the rows of direction dir ("" for all).
func (r *RescaleResult) HeldOutErrors(dir string) (twin, baseline RescaleErrors) {
	var td, tw, tr, bd, bw, br []float64
	for _, row := range r.Rows {
		if dir != "" && row.Direction() != dir {
			continue
		}
		m := row.Measured
		td, tw, tr = append(td, math.Abs(row.Held.DelayS-m.DelayS)), append(tw, math.Abs(row.Held.DowntimeS-m.DowntimeS)), appendFinite(tr, math.Abs(row.Held.RecoveryS-m.RecoveryS))
		bd, bw, br = append(bd, math.Abs(row.Mean.DelayS-m.DelayS)), append(bw, math.Abs(row.Mean.DowntimeS-m.DowntimeS)), appendFinite(br, math.Abs(row.Mean.RecoveryS-m.RecoveryS))
	}
	return RescaleErrors{N: len(td), DelayS: mean(td), DowntimeS: mean(tw), RecoveryS: mean(tr)},
		RescaleErrors{N: len(bd), DelayS: mean(bd), DowntimeS: mean(bw), RecoveryS: mean(br)}
}

// appendFinite leaves out the recoveries that were never measured.
func appendFinite(xs []float64, x float64) []float64 {
	if math.IsNaN(x) {
		return xs
	}
	return append(xs, x)
}
