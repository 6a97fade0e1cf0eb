package measure

// Detail is one metric interval's per-TaskManager and per-operator metrics:
// what Daedalus (per-TaskManager CPU and throughput), the Flink operator
// autoscaler and DS2 (per-vertex busy time and rates) read. Policies that
// need it see it beside Sample in their window; it is not written to
// timeseries.parquet.
type Detail struct {
	TaskManagers []TaskManagerSample // the live TaskManagers, by index
	Operators    []OperatorSample    // the job's operators, in graph order
}

// TaskManagerSample is one TaskManager process over the interval.
type TaskManagerSample struct {
	Index int // 0-based TaskManager index (as in faults and events)
	// CPUBusy is the process's CPU utilisation over the interval: CPU
	// seconds used / (interval × allotment cores), CPUUtilisation
	// (docs/model.md, "Observed quantities"); above 1 only without a CPU
	// limit.
	CPUBusy float64
	// SourceThroughput is records/s its source subtasks emitted
	// (numRecordsOutPerSecond of the source vertex, summed on the TaskManager).
	SourceThroughput float64
}

// OperatorSample is one operator (job vertex) over the interval.
type OperatorSample struct {
	Name        string
	Parallelism int
	Source      bool    // reads the Kafka topic
	InputRate   float64 // records/s in, summed over subtasks (a source: records/s read)
	OutputRate  float64 // records/s out
	// BusyMax is the busiest subtask's busy fraction of the interval, 0..1
	// (TimeFraction of its busy time; busyTimeMsPerSecond / 1000
	// aggregated by MAX as the autoscaler does).
	BusyMax float64
	// Keyed: the operator's input is hash-partitioned over its
	// MaxParallelism key groups.
	Keyed          bool
	MaxParallelism int
	// Partitions is the Kafka partitions a source reads; 0 for others.
	Partitions int
}
