package stepper

import (
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/internal/scenario"
)

func loadScenario(tb testing.TB, path string) scenario.Scenario {
	tb.Helper()
	f, err := scenario.Load(path)
	if err != nil {
		tb.Fatal(err)
	}
	return f.Runs()[0]
}

// BenchmarkStep is one learner step of 10 s of the Gymnasium checkpoint
// scenario, on the Go side of the pipe.
func BenchmarkStep(b *testing.B) {
	sc := loadScenario(b, "../../python/streamtwin/scenarios/checkpoint-tuning.yaml")
	var ep *Episode
	steps := 0
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if ep == nil {
			var err error
			if ep, _, err = Start(sc, 10*time.Second); err != nil {
				b.Fatal(err)
			}
		}
		obs, err := ep.Step(nil)
		if err != nil {
			b.Fatal(err)
		}
		steps++
		if obs.End {
			ep = nil
		}
	}
}
