package external_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/internal/jsonproc"
	"github.com/streamtwin/streamtwin/models/forecast"
	"github.com/streamtwin/streamtwin/models/forecast/external"
)

// TestMain makes the test binary a forecaster process too: `TEST
// fake-forecaster MODE` speaks the protocol and misbehaves at call 2 as
// MODE says (and at hello, for the hello modes).
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "fake-forecaster" {
		fakeForecaster(os.Args[2])
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeQuantile is the fake's answer, computed the same way on both sides:
// the history's sum plus (k+1)·level, increasing in the level at every step.
func fakeQuantile(history []float64, k int, level float64) float64 {
	s := 0.0
	for _, v := range history {
		s += v
	}
	return s + float64(k+1)*level
}

func fakeForecaster(mode string) {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 16<<20)
	out := bufio.NewWriter(os.Stdout)
	say := func(s string) { out.WriteString(s + "\n"); out.Flush() }
	fail := func(format string, a ...any) {
		fmt.Fprintf(os.Stderr, "fake forecaster: "+format+"\n", a...)
		os.Exit(3)
	}
	calls := 0
	for in.Scan() {
		var msg struct {
			Type     string
			Protocol int
			Role     string
			Config   map[string]any
			ID       int
			History  []float64
			Horizon  int
			Levels   []float64
		}
		if err := json.Unmarshal(in.Bytes(), &msg); err != nil {
			fail("bad message: %v", err)
		}
		switch msg.Type {
		case "hello":
			if msg.Protocol != 1 || msg.Role != "forecaster" || msg.Config == nil {
				fail("bad hello %s", in.Bytes())
			}
			name := "fake-" + mode
			if tag, ok := msg.Config["tag"].(string); ok {
				name = tag
			}
			if tag := os.Getenv("FAKE_FORECASTER_NAME"); tag != "" { // given by Settings.Env
				name = tag
			}
			switch mode {
			case "protocol2":
				say(`{"type":"ready","protocol":2}`)
			case "silent-hello":
				time.Sleep(time.Hour)
			case "not-ready":
				say(`{"type":"quantiles","id":0,"quantiles":[]}`)
			case "die-at-hello":
				fmt.Fprintln(os.Stderr, "ImportError: No module named 'darts'")
				os.Exit(1)
			default:
				say(`{"type":"ready","protocol":1,"name":"` + name + `"}`)
			}
			continue
		case "goodbye":
			return
		case "forecast":
		default:
			fail("unexpected %s", in.Bytes())
		}
		calls++
		if msg.ID != calls {
			fail("call %d has id %d", calls, msg.ID)
		}
		q := make([][]float64, len(msg.Levels))
		for i, l := range msg.Levels {
			q[i] = make([]float64, msg.Horizon)
			for k := range q[i] {
				q[i][k] = fakeQuantile(msg.History, k, l)
			}
		}
		id := msg.ID
		if calls == 2 {
			switch mode {
			case "crash":
				fmt.Fprintln(os.Stderr, "Traceback: ZeroDivisionError: division by zero")
				os.Exit(1)
			case "hang":
				time.Sleep(time.Hour)
			case "malformed":
				say(`ok`)
				continue
			case "rows":
				q = q[:len(q)-1]
			case "short":
				q[1] = q[1][1:]
			case "nan":
				say(fmt.Sprintf(`{"type":"quantiles","id":%d,"quantiles":[[NaN]]}`, id))
				continue
			case "null":
				say(fmt.Sprintf(`{"type":"quantiles","id":%d,"quantiles":[[1,2,3],[3,null,4],[5,6,7]]}`, id))
				continue
			case "huge":
				say(fmt.Sprintf(`{"type":"quantiles","id":%d,"quantiles":[[1,2,3],[3,1e400,4],[5,6,7]]}`, id))
				continue
			case "cross":
				q[2][1] = q[1][1] - 0.5
			case "id":
				id = 7
			case "typo":
				say(fmt.Sprintf(`{"type":"quantiles","id":%d,"quantile":[]}`, id))
				continue
			case "error":
				say(fmt.Sprintf(`{"type":"error","id":%d,"message":"history too short: need 10 points, got 3"}`, id))
				continue
			case "mixed":
				say(fmt.Sprintf(`{"type":"error","id":%d,"message":"no","quantiles":[[1]]}`, id))
				continue
			case "two":
				say(fmt.Sprintf(`{"type":"quantiles","id":%d,"quantiles":[]} {}`, id))
				continue
			}
		}
		b, _ := json.Marshal(map[string]any{"type": "quantiles", "id": id, "quantiles": q})
		say(string(b))
	}
}

func fake(t *testing.T, mode string, cfg external.Settings) *external.Forecaster {
	t.Helper()
	cfg.Command = []string{os.Args[0], "fake-forecaster", mode}
	f, err := external.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

var (
	history = []float64{10, 0.1, -2.5, 1e20, 1e-300, 3.25, -1e20, 7}
	levels  = []float64{0.1, 0.5, 0.9}
)

func want(history []float64, h int, levels []float64) [][]float64 {
	q := make([][]float64, len(levels))
	for i, l := range levels {
		q[i] = make([]float64, h)
		for k := range q[i] {
			q[i][k] = fakeQuantile(history, k, l)
		}
	}
	return q
}

func equal(a, b [][]float64) bool {
	return slices.EqualFunc(a, b, func(x, y []float64) bool { return slices.Equal(x, y) })
}

// Good replies: the process starts on the first call, hears the history
// exactly (the fake's answer depends on every value), keeps serving, and
// ends with Close.
func TestQuantiles(t *testing.T) {
	f := fake(t, "ok", external.Settings{Config: map[string]any{"tag": "fake-tagged"}})
	var _ forecast.Quantiler = f
	if n := f.Name(); n != "external" {
		t.Errorf("Name before the first call %q; want external", n)
	}
	for call, h := range []int{3, 1, 40} {
		got, err := f.Quantiles(history, h, levels)
		if err != nil {
			t.Fatalf("call %d: %v", call+1, err)
		}
		if w := want(history, h, levels); !equal(got, w) {
			t.Errorf("call %d: %v; want %v", call+1, got, w)
		}
	}
	if got, err := f.Quantiles(nil, 2, []float64{0.5}); err != nil || !equal(got, [][]float64{{1 * 0.5, 2 * 0.5}}) {
		t.Errorf("empty history: %v, %v", got, err)
	}
	if n := f.Name(); n != "fake-tagged" {
		t.Errorf("Name %q; want the one of ready, fake-tagged", n)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Quantiles(history, 3, levels); err == nil || !strings.Contains(err.Error(), "is closed") {
		t.Errorf("after Close: %v; want is closed", err)
	}
	if err := f.Start(); err == nil || !strings.Contains(err.Error(), "is closed") {
		t.Errorf("Start after Close: %v; want is closed", err)
	}
}

func TestStartIsExplicitOrLazy(t *testing.T) {
	f := fake(t, "ok", external.Settings{})
	if err := f.Start(); err != nil {
		t.Fatal(err)
	}
	if n := f.Name(); n != "fake-ok" {
		t.Errorf("Name after Start %q; want fake-ok", n)
	}
	if err := f.Start(); err != nil { // a no-op while it serves: the call ids go on
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := f.Quantiles(history, 2, levels); err != nil {
			t.Fatal(err)
		}
	}
	// New never starts anything: a command that does not exist fails at the first call.
	g, err := external.New(external.Settings{Command: []string{"/nonexistent/forecaster"}})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	_, err = g.Quantiles(history, 2, levels)
	if err == nil || !strings.Contains(err.Error(), "forecaster process [/nonexistent/forecaster]: start:") {
		t.Errorf("first call: %v", err)
	}
	_, err2 := g.Quantiles(history, 2, levels)
	if err2 == nil || !strings.Contains(err2.Error(), err.Error()) || !strings.Contains(err2.Error(), "Start runs a new process") {
		t.Errorf("second call: %v; want the first error again", err2)
	}
}

// Each failure names the call and, for a bad reply, quotes the line. A
// process that is gone or too slow stays stopped; a bad reply fails that
// call only, and the process answers the next.
func TestFailureModes(t *testing.T) {
	for _, tc := range []struct {
		mode  string
		fatal bool
		want  []string
	}{
		{"crash", true, []string{"forecaster process [", "exited (exit status 1) at call 2 before replying", "ZeroDivisionError"}},
		{"hang", true, []string{"did not reply at call 2 within 300ms"}},
		{"malformed", false, []string{"forecaster fake-malformed [", "reply at call 2: not valid: invalid character 'o'", `the line: "ok"`}},
		{"rows", false, []string{"reply at call 2: 2 rows of quantiles; want one per level, 3", `the line: "{\"id\":2`}},
		{"short", false, []string{"reply at call 2: quantiles[1] (level 0.5) has 2 values; want the horizon, 3"}},
		{"nan", false, []string{"reply at call 2: not valid: invalid character 'N'", `"quantiles\":[[NaN]]`}},
		{"null", false, []string{"reply at call 2: quantiles[1][1] (level 0.5, step 2) is null; want a number"}},
		{"huge", false, []string{"reply at call 2: not valid: quantile 1e400 is out of the float64 range"}},
		{"cross", false, []string{"reply at call 2: quantiles decrease across levels at step 2: level 0.9 is", "below level 0.5's", "(sort each step's values)"}},
		{"id", false, []string{"reply at call 2: answers call 7; want 2"}},
		{"typo", false, []string{"reply at call 2: not valid: json: unknown field \"quantile\""}},
		{"mixed", false, []string{`reply at call 2: not valid: field "quantiles" does not belong in a reply of type "error"`}},
		{"two", false, []string{"reply at call 2: not valid: more than one JSON value on the line"}},
		{"error", false, []string{"forecaster fake-error [", "cannot forecast at call 2: history too short: need 10 points, got 3"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			f := fake(t, tc.mode, external.Settings{Timeout: 0.3})
			if _, err := f.Quantiles(history, 3, levels); err != nil {
				t.Fatalf("call 1: %v", err)
			}
			_, err := f.Quantiles(history, 3, levels)
			if err == nil {
				t.Fatal("call 2 succeeded")
			}
			t.Log(err)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
			got, err3 := f.Quantiles(history, 3, levels)
			switch {
			case tc.fatal && (err3 == nil || !strings.Contains(err3.Error(), err.Error()) || !strings.Contains(err3.Error(), "the forecaster is stopped")):
				t.Errorf("call 3 after a fatal error: %v; want the error of call 2 again", err3)
			case !tc.fatal && err3 != nil:
				t.Errorf("call 3 after a bad reply: %v; want the process to serve on", err3)
			case !tc.fatal && !equal(got, want(history, 3, levels)):
				t.Errorf("call 3: %v", got)
			}
		})
	}
}

// After a fatal error Start runs a new process, whose calls count from 1.
func TestStartAfterACrash(t *testing.T) {
	f := fake(t, "crash", external.Settings{})
	for i := 0; i < 2; i++ {
		f.Quantiles(history, 2, levels)
	}
	if err := f.Start(); err != nil {
		t.Fatal(err)
	}
	if got, err := f.Quantiles(history, 2, levels); err != nil || !equal(got, want(history, 2, levels)) {
		t.Errorf("after Start: %v, %v", got, err)
	}
}

func TestHelloFailures(t *testing.T) {
	for _, tc := range []struct {
		mode string
		want string
	}{
		{"protocol2", "speaks protocol 2; streamtwin speaks 1 (docs/forecaster-protocol.md)"},
		{"silent-hello", "did not reply at hello within 300ms"},
		{"not-ready", `replied to hello with type "quantiles"; want ready`},
		{"die-at-hello", "exited (exit status 1) at hello before replying; its stderr ends:\nImportError: No module named 'darts'"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			f := fake(t, tc.mode, external.Settings{StartTimeout: 0.3})
			_, err := f.Quantiles(history, 2, levels)
			t.Log(err)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "forecaster process [") {
				t.Errorf("first call: %v; want %q", err, tc.want)
			}
			if err := f.Start(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Start: %v; want %q", err, tc.want)
			}
		})
	}
}

// Arguments the protocol cannot carry or the Quantiler contract excludes
// are refused before any process is asked.
func TestArgumentChecks(t *testing.T) {
	f, err := external.New(external.Settings{Command: []string{"/nonexistent/forecaster"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		history []float64
		h       int
		levels  []float64
		want    string
	}{
		{history, 0, levels, "horizon 0; want at least 1 step"},
		{history, 3, nil, "no levels"},
		{history, 3, []float64{0.5, 0.5}, "want them strictly increasing"},
		{history, 3, []float64{0.9, 0.1}, "want them strictly increasing"},
		{history, 3, []float64{0, 0.5}, "levels[0] = 0; want levels in (0, 1)"},
		{history, 3, []float64{0.5, 1}, "levels[1] = 1; want levels in (0, 1)"},
		{history, 3, []float64{math.NaN()}, "levels[0] = NaN"},
		{[]float64{1, math.NaN()}, 3, levels, "history[1] is NaN; the protocol carries finite numbers only"},
		{[]float64{math.Inf(-1)}, 3, levels, "history[0] is -Inf"},
	} {
		if _, err := f.Quantiles(tc.history, tc.h, tc.levels); err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "start") {
			t.Errorf("Quantiles(%v, %d, %v): %v; want %q", tc.history, tc.h, tc.levels, err, tc.want)
		}
	}
}

func TestSettingsValidation(t *testing.T) {
	for _, tc := range []struct {
		cfg  external.Settings
		want string
	}{
		{external.Settings{}, "forecaster external.command: missing"},
		{external.Settings{Command: []string{""}}, "forecaster external.command: missing"},
		{external.Settings{Command: []string{"x"}, Timeout: -1}, "forecaster external.timeout must not be negative"},
		{external.Settings{Command: []string{"x"}, StartTimeout: -1}, "forecaster external.start_timeout must not be negative"},
		{external.Settings{Command: []string{"x"}, Env: jsonproc.Env{"A=B": "c"}}, `forecaster external.env: name "A=B" contains '='`},
	} {
		if _, err := external.New(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v): %v; want %q", tc.cfg, err, tc.want)
		}
	}
	f, err := external.New(external.Settings{Command: []string{"x"}, Config: map[string]any{"bad": func() {}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Start(); err == nil || !strings.Contains(err.Error(), "forecaster external.config:") {
		t.Errorf("Start with a config JSON cannot encode: %v", err)
	}
}

// Settings.Env reaches the process: the fake takes its name from it.
func TestEnvReachesTheProcess(t *testing.T) {
	f := fake(t, "ok", external.Settings{Env: jsonproc.Env{"FAKE_FORECASTER_NAME": "from-env"}})
	if err := f.Start(); err != nil || f.Name() != "from-env" {
		t.Errorf("Start: %v, name %q; want from-env", err, f.Name())
	}
}

// Calls from several goroutines take turns on the one process.
func TestConcurrentCalls(t *testing.T) {
	f := fake(t, "ok", external.Settings{})
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hist := []float64{float64(g), 1, 2}
			for i := 0; i < 5; i++ {
				got, err := f.Quantiles(hist, 4, levels)
				if err == nil && !equal(got, want(hist, 4, levels)) {
					err = fmt.Errorf("goroutine %d: %v", g, got)
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
