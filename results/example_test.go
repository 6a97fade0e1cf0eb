package results_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
)

// A run folder is written through a RunWriter (rows streamed, the summary
// committed last, atomically) and read back with ReadSummary and
// ReadSamples; the Summarizer folds the rows into the summary as they pass.
func ExampleReadSummary() {
	base, err := os.MkdirTemp("", "streamtwin-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(base)
	dir := filepath.Join(base, "run")

	w, err := results.CreateRun(dir, false)
	if err != nil {
		log.Fatal(err)
	}
	defer w.Abort() // a no-op after Commit
	z := measure.NewSummarizer("example", "", "sim", 1, 1000, 60, 4)
	for i, lat := range []float64{120, 180, 150, 900} {
		s := results.Sample{TimeS: float64(i + 1), InputRate: 1000, Throughput: 1000, OutputRate: 1000,
			LatencyMeanMs: lat, LatencyP50Ms: lat, LatencyP99Ms: 2 * lat, Parallelism: 2, Workers: 2, JobState: "RUNNING"}
		if err := w.WriteSample(s); err != nil {
			log.Fatal(err)
		}
		z.Sample(s)
	}
	if err := w.Commit(z.Summary(4, 0), []byte("name: example\n")); err != nil {
		log.Fatal(err)
	}

	sum, err := results.ReadSummary(dir)
	if err != nil {
		log.Fatal(err)
	}
	samples, err := results.ReadSamples(filepath.Join(dir, results.TimeseriesFile))
	if err != nil {
		log.Fatal(err)
	}
	// The summary's p50 and p99 are quantiles of the per-interval p50 and
	// p99: 360 + 0.97 · (1800 − 360) = 1756.8 ms.
	fmt.Printf("%s: %d samples, %d records processed\n", sum.Scenario, len(samples), sum.RecordsProcessed)
	fmt.Printf("latency p50 %.1f ms, p99 %.1f ms, %d s over the %.0f ms bound\n",
		sum.LatencyP50Ms, sum.LatencyP99Ms, sum.QoS.LatencyViolationSeconds, sum.QoS.LatencyBoundMs)
	fmt.Printf("last sample: t = %.0f s, p99 %.0f ms\n", samples[len(samples)-1].TimeS, samples[len(samples)-1].LatencyP99Ms)
	// Output:
	// example: 4 samples, 4000 records processed
	// latency p50 165.0 ms, p99 1756.8 ms, 1 s over the 1000 ms bound
	// last sample: t = 4 s, p99 1800 ms
}
