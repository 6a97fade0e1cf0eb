package kafka

import (
	"fmt"
	"math"

	"github.com/streamtwin/streamtwin/sim"
)

// Config describes the input topic.
type Config struct {
	// Partitions is the number of partitions (Khaos: 4).
	Partitions int `yaml:"partitions"`
	// Skew is the Zipf exponent of the per-partition append share: partition
	// i receives a share ∝ 1/(i+1)^Skew. 0 (default) spreads records evenly,
	// as the keyless YSB producer does.
	Skew float64 `yaml:"skew"`
	// BrokerStart is how long a broker started again after a kafka_broker
	// fault takes until clients read and write again (JVM start, log
	// recovery, the KRaft controller's election). Default 2 s: the local
	// cluster's single KRaft broker, with little log to recover, served
	// 1.6 s after its start (TestLiveFaultInjectors, 2026-12-06); a broker
	// with much log to recover takes longer.
	BrokerStart sim.Duration `yaml:"broker_start"`
}

// DefaultConfig is 4 evenly loaded partitions, as in the Khaos jobs.
func DefaultConfig() Config { return Config{Partitions: 4, BrokerStart: 2} }

// MaxPartitions bounds a topic's partitions. Kafka's guidance is a few
// thousand per broker and about 200,000 per cluster; one topic beyond
// 100,000 describes no deployment (and would cost the twin gigabytes of
// per-partition state before it says anything).
const MaxPartitions = 100_000

// Validate reports impossible settings, naming the field.
func (c Config) Validate() map[string]string {
	errs := map[string]string{}
	if c.Partitions < 1 || c.Partitions > MaxPartitions {
		errs["partitions"] = fmt.Sprintf("must be in 1..%d, got %d", MaxPartitions, c.Partitions)
	}
	if c.BrokerStart < 0 || c.BrokerStart > 600 {
		errs["broker_start"] = fmt.Sprintf("must be in [0, 10m], got %v", c.BrokerStart)
	}
	if c.Skew < 0 || math.IsNaN(c.Skew) {
		errs["skew"] = fmt.Sprintf("must be ≥ 0, got %g", c.Skew)
	}
	return errs
}

// Shares returns each partition's fraction of the appended records; they
// sum to 1.
func (c Config) Shares() []float64 {
	w := make([]float64, c.Partitions)
	var sum float64
	for i := range w {
		w[i] = 1 / math.Pow(float64(i+1), c.Skew)
		sum += w[i]
	}
	for i := range w {
		w[i] /= sum
	}
	return w
}

// Topic tracks totals over all partitions. Consumers read every partition in
// proportion to its append share (a backpressured Flink source slows all its
// splits alike), so per-partition offsets are the totals times the share and
// need not be stored one by one.
type Topic struct {
	Shares    []float64
	EndOffset float64 // records appended so far (sum of log-end offsets)
	Consumed  float64 // position of the consumer group (sum over partitions)
	Committed float64 // last offsets committed (on checkpoint completion)
}

// New returns an empty topic.
func New(c Config) *Topic { return &Topic{Shares: c.Shares()} }

// Lag is log-end minus consumed offset, summed over partitions, in records.
func (t *Topic) Lag() float64 { return math.Max(0, t.EndOffset-t.Consumed) }

// PartitionOffsets returns the per-partition log-end, consumed and committed
// offsets.
func (t *Topic) PartitionOffsets() (end, consumed, committed []float64) {
	n := len(t.Shares)
	end, consumed, committed = make([]float64, n), make([]float64, n), make([]float64, n)
	for i, s := range t.Shares {
		end[i], consumed[i], committed[i] = s*t.EndOffset, s*t.Consumed, s*t.Committed
	}
	return
}

// SourceShares returns, for a source of parallelism p, each subtask's share
// of the topic. Partitions are assigned round-robin (partition i to subtask
// i mod p, as Flink's KafkaSource enumerator does for one topic); subtasks
// beyond the partition count get nothing and sit idle.
func (t *Topic) SourceShares(p int) []float64 {
	out := make([]float64, p)
	for i, s := range t.Shares {
		out[i%p] += s
	}
	return out
}
