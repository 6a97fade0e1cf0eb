package measure

import "math"

// The observed quantities, each computed by one function from the raw
// readings both backends produce (docs/model.md, "Observed quantities").
// The twin feeds them the model's integrals over the metric interval, the
// live driver its counters' differences between two samples, so a policy
// reading a column sees the same statistic in either backend.

// CPUUtilisation is a TaskManager's CPU utilisation over an interval:
// the CPU seconds its process used (user + system, all threads) divided
// by the CPU seconds its allotment offers, intervalS × allotmentCores.
// That is how Kubernetes computes the utilisation of a CPU request
// (kubectl top, the HPA's resource metric). It is not clamped: under a
// CFS limit equal to the allotment the kernel keeps it at or below 1 up to
// the jitter of the interval's ends, without a limit (live --tm-cpu 0) the
// JVM may use more cores than it is allotted and the value exceeds 1, as a
// pod's utilisation of its request does. NaN when the interval or the
// allotment is not positive or the CPU seconds are unknown (NaN) or
// negative (a counter that restarted with its process).
func CPUUtilisation(cpuSeconds, intervalS, allotmentCores float64) float64 {
	if !(intervalS > 0) || !(allotmentCores > 0) || !(cpuSeconds >= 0) {
		return math.NaN()
	}
	return cpuSeconds / (intervalS * allotmentCores)
}

// CPUAcross is cpu_busy_mean and cpu_busy_max: the mean and the maximum of
// the running TaskManagers' CPUUtilisation over one interval. NaN entries
// (a TaskManager without two readings yet) are left out; with none left
// both are 0, the utilisation of a cluster with nothing running.
func CPUAcross(utils []float64) (mean, peak float64) {
	n := 0
	for _, u := range utils {
		if math.IsNaN(u) {
			continue
		}
		mean += u
		peak = max(peak, u) // no NaN here; the builtin, as math.Max is a call on amd64
		n++
	}
	if n == 0 {
		return 0, 0
	}
	return mean / float64(n), peak
}

// TimeFraction is the share of an interval a thread spent in a state (busy,
// backpressured, idle): busyS seconds of it over intervalS seconds, as
// Flink's busyTimeMsPerSecond / 1000 and backPressuredTimeMsPerSecond /
// 1000. One thread cannot spend more than the interval in a state, so it
// is clamped to 0..1 (readings taken a few ms apart overshoot otherwise).
// 0 for an empty interval.
func TimeFraction(busyS, intervalS float64) float64 {
	if !(intervalS > 0) || math.IsNaN(busyS) {
		return 0
	}
	return math.Min(1, math.Max(0, busyS/intervalS))
}

// Rate is records/s over an interval from a cumulative record count read
// at its start and its end: input rate (the topic's end offsets), true
// processing rate (the records the sources read, throughput) and output
// rate (the sink's records in). A count that went back restarted with its
// job: the records since the restart are the new count itself. 0 for an
// empty interval.
func Rate(before, after, intervalS float64) float64 {
	if !(intervalS > 0) {
		return 0
	}
	if after < before {
		return math.Max(0, after) / intervalS
	}
	return (after - before) / intervalS
}

// Lag is the records in the topic the job has not read: the end offset
// less the consumer position (the next offset to read), summed over
// partitions; never negative (a position read an instant after the end
// offset may pass it).
func Lag(endOffset, position float64) float64 {
	return math.Max(0, endOffset-position)
}
