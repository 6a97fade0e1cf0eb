package validate

import (
	"fmt"
	"math"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
)

// StaticRun is a measured run of the job at a fixed configuration that
// its CPU is calibrated on: the scenario variant that runs it, and its
// series (timestamp,value; .csv or .csv.gz, one row per second): the mean
// JVM CPU load over the TaskManagers (0–1 of a TaskManager's cores), the
// job's throughput (records/s) and its registered TaskManagers.
type StaticRun struct {
	Variant      string `yaml:"variant"`
	CPU          string `yaml:"cpu"`
	Throughput   string `yaml:"throughput"`
	TaskManagers string `yaml:"task_managers"`
}

// files are the run's series by protocol field, under prefix.
func (r StaticRun) files(prefix string) map[string]string {
	return map[string]string{prefix + "cpu": r.CPU, prefix + "throughput": r.Throughput, prefix + "task_managers": r.TaskManagers}
}

// CPUCalibration is the job's CPU calibrated on a static run: the CPU line
// (measure.CPULineOf) measured and the twin's at the calibrated values.
// cost_scale matches the lines' slopes (the CPU per record) and
// cluster.idle_cpu their intercepts (what a TaskManager uses at no load);
// a mean CPU alone would take a job with a busy JVM for an expensive one.
type CPUCalibration struct {
	CostScale float64 `json:"cost_scale"`
	IdleCPU   float64 `json:"idle_cpu"`
	// the lines: intercept (cores per TaskManager) and slope (µs of CPU
	// per record), measured and the twin's
	MeasuredIdle      float64 `json:"measured_idle"`
	MeasuredPerRecord float64 `json:"measured_us_per_record"`
	TwinIdle          float64 `json:"twin_idle"`
	TwinPerRecord     float64 `json:"twin_us_per_record"`
	Windows           int     `json:"windows"` // the measured line's
}

func (c CPUCalibration) String() string {
	return fmt.Sprintf("CPU line of the static run: %.3f + %.1f µs/record measured, %.3f + %.1f µs/record the twin's: cost_scale %.4g, idle_cpu %.3f",
		c.MeasuredIdle, c.MeasuredPerRecord, c.TwinIdle, c.TwinPerRecord, c.CostScale, c.IdleCPU)
}

// cell is the calibration as a table cell: the measured line, then the
// values that give the twin the same.
func (c CPUCalibration) cell() string {
	return fmt.Sprintf("%.3f + %.1f µs/record → %.3g, %.3f", c.MeasuredIdle, c.MeasuredPerRecord, c.CostScale, c.IdleCPU)
}

// calibrateCPU fits the CPU line of the static run's series and sets sc's
// cost_scale and idle_cpu so that the twin's run of sc has the same line:
// the slope grows with cost_scale in proportion and the intercept with
// idle_cpu one to one, so a few corrections find both.
func calibrateCPU(sc *scenario.Scenario, p *Protocol, run StaticRun) (CPUCalibration, error) {
	var c CPUCalibration
	var cols []column
	for _, f := range []struct {
		path string
		set  func(*results.Sample, float64)
		hold bool
	}{{run.CPU, setCPU, false}, {run.Throughput, setThroughput, false}, {run.TaskManagers, setWorkers, true}} {
		pts, err := readSeries(p.Path(f.path))
		if err != nil {
			return c, &InputError{err}
		}
		cols = append(cols, column{pts, f.set, f.hold})
	}
	measured, err := measure.CPULineOf(merge(cols...))
	if err != nil {
		return c, &InputError{fmt.Errorf("%s: %w", p.Path(run.CPU), err)}
	}
	c.MeasuredIdle, c.MeasuredPerRecord, c.Windows = measured.Idle, 1e6*measured.PerRecord, measured.Windows
	if sc.Job.CostScale == 0 {
		sc.Job.CostScale = 1
	}
	var twin measure.CPULine
	for range 4 {
		_, samples, _, err := runTwin(*sc)
		if err != nil {
			return c, err
		}
		if twin, err = measure.CPULineOf(samples); err != nil {
			return c, fmt.Errorf("%s: the twin's static run: %w", p.Name, err)
		}
		if math.Abs(twin.PerRecord/measured.PerRecord-1) < 1e-3 && math.Abs(twin.Idle-measured.Idle) < 1e-3 {
			break
		}
		sc.Job.CostScale *= measured.PerRecord / twin.PerRecord
		sc.Job.Cluster.IdleCPU = math.Max(0, sc.Job.Cluster.IdleCPU+measured.Idle-twin.Idle)
	}
	c.CostScale, c.IdleCPU = sc.Job.CostScale, sc.Job.Cluster.IdleCPU
	c.TwinIdle, c.TwinPerRecord = twin.Idle, 1e6*twin.PerRecord
	return c, nil
}

// column is one measured series and the sample field it sets; a held
// field (a count) keeps its last reading until the next, the others are
// NaN where their series has no reading.
type column struct {
	pts  []point
	set  func(*results.Sample, float64)
	hold bool
}

func setCPU(s *results.Sample, v float64)        { s.CPUBusyMean = v }
func setThroughput(s *results.Sample, v float64) { s.Throughput = v }
func setWorkers(s *results.Sample, v float64)    { s.Workers = int32(math.Round(v)) }

// merge is measured series as samples at every time any of them has, in
// seconds since the earliest.
func merge(cols ...column) []results.Sample {
	var out []results.Sample
	next := make([]int, len(cols))
	last := make([]float64, len(cols))
	t0 := math.Inf(1)
	for _, c := range cols {
		if len(c.pts) > 0 {
			t0 = math.Min(t0, c.pts[0].t)
		}
	}
	for {
		t := math.Inf(1)
		for k, c := range cols {
			if next[k] < len(c.pts) {
				t = math.Min(t, c.pts[next[k]].t)
			}
		}
		if math.IsInf(t, 1) {
			return out
		}
		s := results.Sample{TimeS: t - t0, Throughput: math.NaN(), CPUBusyMean: math.NaN()}
		for k, c := range cols {
			if next[k] < len(c.pts) && c.pts[next[k]].t == t {
				last[k] = c.pts[next[k]].value
				c.set(&s, last[k])
				next[k]++
			} else if c.hold {
				c.set(&s, last[k])
			}
		}
		out = append(out, s)
	}
}
