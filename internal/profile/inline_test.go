package profile

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/models/policy/khaos"
)

// inlineScenario has a Khaos run without models, one with them inline, one
// reading a profile, and a static one.
const inlineScenario = `
name: inline
seed: 7
duration: 24h
workload: {name: ysb-day}
kafka: {partitions: 4}
job: {template: ysb, latency: {window: 0s}, restart: {strategy: fixed-delay, delay: 1s, attempts: 0}}
variants:
  - {name: static, job: {checkpoint: {interval: 30s}}}
  - name: khaos
    job: {checkpoint: {interval: 119s}}
    policy: {name: khaos, latency_bound: 1s, recovery_bound: 240s}
  - name: khaos2
    job: {checkpoint: {interval: 60s}}
    policy: {name: khaos, latency_bound: 2s, recovery_bound: 240s}
  - name: given
    policy: {name: khaos, latency_bound: 1s, recovery_bound: 240s, profile: given/models.json}
  - name: inline
    policy:
      name: khaos
      latency_bound: 1s
      recovery_bound: 240s
      models:
        latency: {intercept: 1, throughput: 0, ci_ms: 0, n: 3}
        recovery: {intercept: 2, throughput: 0, ci_ms: 0, n: 3}
`

var testModels = khaos.Models{
	Latency:      khaos.Linear{Intercept: 400, Throughput: 0.002, CIms: -0.0005, N: 96},
	Recovery:     khaos.Linear{Intercept: -200, Throughput: 0.005, CIms: 0.001, N: 96},
	MinRecoveryS: 55,
}

// writeModels writes a models.json as Result.Write does, with hash.
func writeModels(t *testing.T, path string, m khaos.Models, hash string) {
	t.Helper()
	b, err := json.Marshal(Result{Models: m, ScenarioHash: hash})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(b))
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// givenModels are the models of given/models.json beside the scenario.
var givenModels = khaos.Models{Latency: khaos.Linear{Intercept: 5, N: 1}, Recovery: khaos.Linear{Intercept: 6, N: 1}}

// inlineFile writes the scenario and given/models.json into a fresh folder
// and loads it.
func inlineFile(t *testing.T, src string) *scenario.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "inline.yaml")
	writeFile(t, path, src)
	writeModels(t, filepath.Join(filepath.Dir(path), "given", ModelsFile), givenModels, "")
	f, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func runOf(t *testing.T, runs []scenario.Scenario, variant string) scenario.Scenario {
	t.Helper()
	for _, sc := range runs {
		if sc.Variant == variant {
			return sc
		}
	}
	t.Fatalf("no variant %s", variant)
	return scenario.Scenario{}
}

func modelsOf(t *testing.T, sc scenario.Scenario) map[string]any {
	t.Helper()
	var spec struct {
		Models map[string]any `yaml:"models"`
	}
	if err := yaml.NodeToValue(sc.Policy.Node, &spec); err != nil {
		t.Fatal(err)
	}
	return spec.Models
}

func TestHash(t *testing.T) {
	base := inlineFile(t, inlineScenario).Base
	h0, err := Hash(base)
	if err != nil {
		t.Fatal(err)
	}
	if len(h0) != 16 {
		t.Errorf("hash %q: want 16 hex digits", h0)
	}
	cases := []struct {
		name   string
		change func(sc *scenario.Scenario)
		same   bool
	}{
		{"checkpoint interval", func(sc *scenario.Scenario) { sc.Job.Checkpoint.Interval = 999 }, true},
		{"policy", func(sc *scenario.Scenario) { sc.Policy.Name = "static" }, true},
		{"faults", func(sc *scenario.Scenario) { sc.Faults = append(sc.Faults, scenario.Fault{}) }, true},
		{"seed", func(sc *scenario.Scenario) { sc.Seed++ }, false},
		{"duration", func(sc *scenario.Scenario) { sc.Duration /= 2 }, false},
		{"parallelism", func(sc *scenario.Scenario) { sc.Job.Parallelism++ }, false},
		{"partitions", func(sc *scenario.Scenario) { sc.Kafka.Partitions++ }, false},
		{"workload", func(sc *scenario.Scenario) { sc.Workload.Name = "iot-day" }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc := base
			c.change(&sc)
			h, err := Hash(sc)
			if err != nil {
				t.Fatal(err)
			}
			if (h == h0) != c.same {
				t.Errorf("hash %s after changing the %s, %s before; want same = %v", h, c.name, h0, c.same)
			}
		})
	}
}

func TestProfiledRun(t *testing.T) {
	withKhaos := inlineFile(t, inlineScenario)
	plain, err := scenario.Parse("p.yaml", []byte("name: plain\nduration: 1h\nworkload: {shape: constant, rate: 1000/s}\nvariants:\n  - {name: a}\n"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		f       *scenario.File
		variant string
		want    string // variant of the run picked
		err     string
	}{
		{"first khaos run", withKhaos, "", "khaos", ""},
		{"named variant", withKhaos, "static", "static", ""},
		{"no khaos run: the base", plain, "", "", ""},
		{"unknown variant", withKhaos, "nope", "", withKhaos.Path + ` has no variant "nope"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc, err := ProfiledRun(c.f, c.variant)
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sc.Variant != c.want {
				t.Errorf("picked variant %q, want %q", sc.Variant, c.want)
			}
		})
	}
}

func TestReadModels(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	writeModels(t, good, testModels, "abc")
	cases := []struct {
		name, text string // text "" leaves the file out
		err        string
	}{
		{"not JSON", "{", "is not a models.json of `streamtwin profile`"},
		{"no models", `{"scenario_hash": "abc"}`, "is not a models.json of `streamtwin profile`"},
		{"models of the wrong type", `{"models": 3}`, "cannot unmarshal"},
		{"empty latency model", `{"models": {"recovery": {"intercept": 1}}}`, "the latency model is empty"},
		{"missing file", "", "no such file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".json")
			if c.text != "" {
				writeFile(t, path, c.text)
			}
			_, _, err := ReadModels(path)
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("error %v, want one with %q", err, c.err)
			}
		})
	}
	m, hash, err := ReadModels(good)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(testModels)
	if m != string(want) || hash != "abc" {
		t.Errorf("models %s, hash %q; want %s, abc", m, hash, want)
	}
}

// TestInlineModels: policy.profile is read relative to the scenario file,
// models given inline stay, other policies are untouched, and a run without
// either gets the profile of OUT/profile when it matches the job, shared by
// every such run of the file.
func TestInlineModels(t *testing.T) {
	f := inlineFile(t, inlineScenario)
	out := t.TempDir()
	hash, err := Hash(runOf(t, f.Runs(), "khaos"))
	if err != nil {
		t.Fatal(err)
	}
	writeModels(t, filepath.Join(out, SubDir, ModelsFile), testModels, hash)
	var log bytes.Buffer
	profiled := false
	before := append([]scenario.Scenario(nil), f.Runs()...)
	runs, err := InlineModels(f, f.Runs(), Inline{Out: out, Log: &log, Profiled: func(*Result, []string) { profiled = true }})
	if err != nil {
		t.Fatal(err)
	}
	if profiled {
		t.Error("profiled although OUT/profile matches the job")
	}
	if got, want := log.String(), "khaos: using the profile in "+filepath.Join(out, SubDir)+"\n"; got != want {
		t.Errorf("log %q, want %q (once: the runs share the profile)", got, want)
	}
	intercept := func(sc scenario.Scenario, model string) any {
		m := modelsOf(t, sc)
		lin, _ := m[model].(map[string]any)
		return lin["intercept"]
	}
	cases := []struct {
		variant string
		want    any // latency intercept of the inlined models; nil: none
	}{
		{"static", nil},
		{"khaos", uint64(400)},
		{"khaos2", uint64(400)}, // another CI: the same profile
		{"given", uint64(5)},
		{"inline", uint64(1)},
	}
	for _, c := range cases {
		t.Run(c.variant, func(t *testing.T) {
			sc := runOf(t, runs, c.variant)
			if c.want == nil {
				if sc.Policy.Name == khaos.Name || sc.Policy.Node != nil && modelsOf(t, sc) != nil {
					t.Errorf("policy %s got models", sc.Policy.Name)
				}
				return
			}
			if got := intercept(sc, "latency"); got != c.want {
				t.Errorf("latency intercept %v (%T), want %v", got, got, c.want)
			}
			if before := runOf(t, before, c.variant); sc.Seed != before.Seed || sc.Job.Checkpoint.Interval != before.Job.Checkpoint.Interval {
				t.Errorf("seed %d, CI %v; want %d, %v as before", sc.Seed, sc.Job.Checkpoint.Interval, before.Seed, before.Job.Checkpoint.Interval)
			}
		})
	}
}

// TestInlineModelsBadSpec: a Khaos block or profile the models cannot come
// from is a SpecError, with the message the CLI prints. (Loading the
// scenario checks policy.profile too: these change it after loading.)
func TestInlineModelsBadSpec(t *testing.T) {
	cases := []struct {
		name   string
		change func(t *testing.T, dir string, sc *scenario.Scenario)
		err    string
	}{
		{"profile gone", func(t *testing.T, dir string, _ *scenario.Scenario) {
			if err := os.Remove(filepath.Join(dir, "given", ModelsFile)); err != nil {
				t.Fatal(err)
			}
		}, filepath.Join("given", ModelsFile) + ": no such file or directory (write it with `streamtwin profile SCENARIO`)"},
		{"profile not a models.json", func(t *testing.T, dir string, _ *scenario.Scenario) {
			writeFile(t, filepath.Join(dir, "given", ModelsFile), "[]")
		}, "is not a models.json of `streamtwin profile` (write it with `streamtwin profile SCENARIO`)"},
		{"policy block of the wrong shape", func(t *testing.T, _ string, sc *scenario.Scenario) {
			file, err := parser.ParseBytes([]byte("- a list"), 0)
			if err != nil {
				t.Fatal(err)
			}
			sc.Policy.Node = file.Docs[0].Body
		}, "inline.yaml:1: sequence was used where mapping is expected"},
		// the problem is at the policy field's line (of the file the node
		// comes from), without go-yaml's position and excerpt
		{"models of the wrong type", func(t *testing.T, _ string, sc *scenario.Scenario) {
			sc.Policy.Node = policyNode(t, "policy:\n  name: khaos\n  models: 3\n")
		}, "inline.yaml:3: policy.models: int was used where mapping is expected"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := inlineFile(t, inlineScenario)
			runs := []scenario.Scenario{runOf(t, f.Runs(), "given")}
			c.change(t, filepath.Dir(f.Path), &runs[0])
			_, err := InlineModels(f, runs, Inline{Out: t.TempDir()})
			var se *SpecError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), c.err) {
				t.Errorf("error %v (%T), want a SpecError with %q", err, err, c.err)
			}
		})
	}
}

// policyNode is the policy: block of src.
func policyNode(t *testing.T, src string) ast.Node {
	t.Helper()
	file, err := parser.ParseBytes([]byte(src), 0)
	if err != nil {
		t.Fatal(err)
	}
	return file.Docs[0].Body.(*ast.MappingNode).Values[0].Value
}

// TestInlineModelsProfilesWhenStale: a profile of another job in OUT/profile
// is not used; the run is profiled again into OUT/profile, stamped with its
// hash, so the next call uses it.
func TestInlineModelsProfilesWhenStale(t *testing.T) {
	if testing.Short() {
		t.Skip("profiles a day")
	}
	f := inlineFile(t, inlineScenario)
	out := t.TempDir()
	stale := filepath.Join(out, SubDir, ModelsFile)
	writeModels(t, stale, testModels, "another-job")
	var log bytes.Buffer
	var files []string
	khaosRun := func() []scenario.Scenario { return []scenario.Scenario{runOf(t, f.Runs(), "khaos")} } // a copy: InlineModels sets in place
	runs, err := InlineModels(f, khaosRun(), Inline{Out: out, Log: &log, Profiled: func(_ *Result, fs []string) { files = fs }})
	if err != nil {
		t.Fatal(err)
	}
	want := "khaos: " + stale + " was profiled on another job or input; profiling again\n" +
		"khaos: no profile yet; profiling " + f.Path + " into " + filepath.Join(out, SubDir) + " (phases 1–3)\n"
	if log.String() != want {
		t.Errorf("log %q, want %q", log.String(), want)
	}
	if len(files) == 0 || files[2] != stale {
		t.Errorf("files %v: want the profile written, models.json third", files)
	}
	m, hash, err := ReadModels(stale)
	if err != nil {
		t.Fatal(err)
	}
	if h, _ := Hash(runs[0]); hash != h {
		t.Errorf("profile stamped %q, want the run's hash %q", hash, h)
	}
	var inlined khaos.Models
	b, _ := json.Marshal(modelsOf(t, runs[0]))
	if err := json.Unmarshal(b, &inlined); err != nil {
		t.Fatal(err)
	}
	if again, _ := json.Marshal(inlined); string(again) != m {
		t.Errorf("inlined models %s, profile %s", again, m)
	}
	log.Reset()
	if _, err := InlineModels(f, khaosRun(), Inline{Out: out, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(log.String(), "khaos: using the profile in ") {
		t.Errorf("second call: %q, want the fresh profile used", log.String())
	}
}
