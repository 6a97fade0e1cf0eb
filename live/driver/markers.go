package driver

import (
	"context"
	"math"
	"sort"
	"strings"

	"github.com/streamtwin/streamtwin/live/rest"
)

// Latency markers (metrics.latency.interval, set by `streamtwin live up`,
// see live/cluster.LatencyMarkerInterval) give latency_marker_p99_ms, the
// figure the simulator reports and the Khaos policy acts on.
//
// What Flink 2.2.1 exposes (checked against the real cluster; fixtures in
// live/rest/testdata/markers-*.json): every operator subtask that received
// a marker has a histogram, registered in its task's metric group, so the
// ids are under the vertex, not the job (GET /jobs/{id}/metrics has no
// latency metric):
//
//	latency.source_id.<source operator id>.operator_id.<operator id>.operator_subtask_index.<n>.latency_p99
//
// with _min, _max, _mean, _median, _stddev, _p75, _p90, _p95, _p98, _p99 and
// _p999 (no _count), values in ms. The operator ids are OperatorIDs; the
// live jobs do not chain, so they equal the vertex ids (the source's and
// the "Sink: …: Writer"'s), and they stay the same across resubmissions
// (the jobs set uids). GET /jobs/{id}/vertices/{vid}/metrics names them
// "<n>.latency.…" (one id per subtask n), which is what the functions below
// use: that endpoint answers the ids it knows even when others are missing,
// while the aggregating …/subtasks/metrics?agg= answers [] to the whole
// request when one id is unknown.
//
// Behaviour seen live (traffic-monitoring, parallelism 2, 3,000 events/s):
// a subtask's histogram appears with the first marker it receives, 2.4–4.4 s
// after the submission (within 2 s of every task running). After a
// TaskManager kill the JobManager keeps serving the old tasks' last values
// through RESTARTING and the redeployment, until each new task's first
// marker (up to about a second after every task runs); only then does a
// subtask's id answer the new, empty-at-start histogram. The ids are the
// same after the restart. Read markers only while every task runs (as the
// sampler does for its other metrics), and expect the first sample after a
// restart to mix old and new values.

// markerSuffix ends the p99 id of a latency-marker histogram.
const markerSuffix = ".latency_p99"

// markerMetricIDs lists the vertex-scoped ids of the latency-marker p99s of
// the sink writer vertex (sinkVertexID, see sinkVertex): one per subtask
// that has received a marker and per source operator, sorted. Every
// operator of the vertex counts (with chaining the sink is not the vertex's
// head; chained operators see a marker within microseconds of each other).
// Call it once per job submission, and again while it returns fewer ids
// than the vertex's parallelism (subtasks without a marker yet); an empty
// list with a nil error means no marker has arrived yet (or latency
// tracking is off).
func markerMetricIDs(ctx context.Context, c *rest.Client, jobID, sinkVertexID string) ([]string, error) {
	names, err := c.VertexMetricNames(ctx, jobID, sinkVertexID)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, n := range names {
		if isMarkerP99(n) {
			ids = append(ids, n)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// isMarkerP99 tells a vertex-scoped latency-marker p99 id,
// "<n>.latency.….latency_p99", from other metrics (the Kafka producer's
// "<n>.Sink__Kafka__Writer.KafkaProducer.request-latency-avg", the task's
// "<n>.mailboxLatencyMs_p99", …).
func isMarkerP99(id string) bool {
	idx, rest, ok := strings.Cut(id, ".")
	if !ok || idx == "" || strings.Trim(idx, "0123456789") != "" {
		return false
	}
	return strings.HasPrefix(rest, "latency.") && strings.HasSuffix(rest, markerSuffix)
}

// markerP99 reads the ids of markerMetricIDs on the sink writer vertex and
// returns the sink's latency-marker p99 in ms: the maximum over its
// subtasks' (and source operators') p99s. Why the maximum: Khaos bounds
// the sink's p99, a tail figure, and the slowest subtask is the tail (one
// subtask catching up after a restart is the latency the user sees);
// Flink offers no merged histogram, and a mean of p99s would hide that
// subtask. With live up's history of 10 markers a subtask's p99 is its
// slowest marker of the last ≈ 10 s, so the maximum is also exactly the
// p99 of all the sink's markers in that span. ok is false when Flink
// answers none of the ids, or only NaN, or the request fails.
func markerP99(ctx context.Context, c *rest.Client, jobID, sinkVertexID string, ids []string) (float64, bool) {
	if len(ids) == 0 {
		return math.NaN(), false
	}
	v, err := c.VertexMetricValues(ctx, jobID, sinkVertexID, ids...)
	if err != nil {
		return math.NaN(), false
	}
	return maxFinite(v, ids)
}

// maxFinite is the largest finite value of ids in v.
func maxFinite(v map[string]float64, ids []string) (float64, bool) {
	best, ok := math.Inf(-1), false
	for _, id := range ids {
		if x, has := v[id]; has && !math.IsNaN(x) && !math.IsInf(x, 0) && x >= 0 {
			best, ok = math.Max(best, x), true
		}
	}
	if !ok {
		return math.NaN(), false
	}
	return best, true
}
