package scenario

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/sim"
)

// Estimate is what a run of a scenario will cost before it starts: its
// peak memory and how many events it writes.
type Estimate struct {
	MemoryBytes float64
	Events      float64
}

// Per-unit costs of a simulated run, from measurements (make bench: a
// 7-day run peaks at 80–135 MiB): the Go runtime and Parquet writers, the
// per-second rate schedule and its prefix sums with the per-interval
// percentile buffers, Kafka's per-partition state and the job graph's
// tasks. Events: the clock's samples are rows, not events; the events are
// one per checkpoint and about a dozen per fault.
const (
	baseBytes         = 48 << 20
	bytesPerSecond    = 64
	bytesPerPartition = 256
	bytesPerTask      = 1 << 10
)

// Estimate returns the cost of one run of sc.
func (sc Scenario) Estimate() Estimate {
	dur := float64(sc.Duration)
	tasks := float64(max(1, sc.Job.Parallelism) * max(1, len(sc.Job.Operators)))
	mem := baseBytes + bytesPerSecond*dur + bytesPerPartition*float64(sc.Kafka.Partitions) + bytesPerTask*tasks
	events := 0.0
	if ci := float64(sc.Job.Checkpoint.Interval); ci > 0 {
		events += dur / ci
	}
	for _, f := range sc.Faults {
		n := 1.0
		if r := f.Random; r != nil && r.MTBF > 0 {
			n = dur / float64(r.MTBF)
		}
		events += 12 * n
	}
	return Estimate{MemoryBytes: mem, Events: events}
}

func (e Estimate) String() string {
	return fmt.Sprintf("≈ %.0f MiB, ≈ %.3g events", e.MemoryBytes/(1<<20), e.Events)
}

// CheckMemory refuses runs whose estimated memory exceeds limit bytes, with
// parallel runs at once in one process (which share the runtime's base).
func (e Estimate) CheckMemory(path string, parallel int, limit float64) error {
	need := baseBytes + (e.MemoryBytes-baseBytes)*float64(max(1, parallel))
	if limit <= 0 || need <= limit {
		return nil
	}
	return fmt.Errorf("%s: a run needs %s; %d at once need %.0f MiB, above --max-memory %v: shorten duration, lower kafka.partitions or job.parallelism, run fewer workers, or raise --max-memory",
		path, e, max(1, parallel), need/(1<<20), sim.Bytes(limit))
}

// DefaultMaxMemory is half of the machine's memory (MemTotal of
// /proc/meminfo), or 4 GiB where that cannot be read.
func DefaultMaxMemory() float64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 4 << 30
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			if kib, err := strconv.ParseFloat(fields[1], 64); err == nil {
				return kib * 1024 / 2
			}
		}
	}
	return 4 << 30
}
