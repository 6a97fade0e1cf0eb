package prometheus

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
)

// File is the part of prometheus.yml that live up writes and the Client
// rewrites. Durations are Prometheus's strings ("1s").
type File struct {
	Global        Global         `yaml:"global"`
	ScrapeConfigs []ScrapeConfig `yaml:"scrape_configs"`
}

// Global is the global section.
type Global struct {
	ScrapeInterval     string `yaml:"scrape_interval"`
	ScrapeTimeout      string `yaml:"scrape_timeout"`
	EvaluationInterval string `yaml:"evaluation_interval,omitempty"`
}

// ScrapeConfig is one scrape job.
type ScrapeConfig struct {
	JobName              string          `yaml:"job_name"`
	ScrapeInterval       string          `yaml:"scrape_interval,omitempty"`
	ScrapeTimeout        string          `yaml:"scrape_timeout,omitempty"`
	MetricsPath          string          `yaml:"metrics_path,omitempty"`
	StaticConfigs        []StaticConfig  `yaml:"static_configs"`
	MetricRelabelConfigs []RelabelConfig `yaml:"metric_relabel_configs,omitempty"`
}

// StaticConfig is a list of targets with extra labels.
type StaticConfig struct {
	Targets []string          `yaml:"targets"`
	Labels  map[string]string `yaml:"labels,omitempty"`
}

// RelabelConfig is one relabelling rule.
type RelabelConfig struct {
	SourceLabels []string `yaml:"source_labels,flow,omitempty"`
	Regex        string   `yaml:"regex,omitempty"`
	Action       string   `yaml:"action,omitempty"`
}

// Scrape jobs of HostConfig.
const (
	NodeJob  = "node"  // node-exporter, its families turned on and off by a sampler run
	FlinkJob = "flink" // Flink's PrometheusReporter on the JobManager and each TaskManager
	// TruthJob scrapes node-exporter too, every second whatever a sampler
	// does: a live run's ground truth. WithOff leaves it alone and Samples
	// does not count it.
	TruthJob = "node-truth"
)

// Target is one scrape target with a label naming its process.
type Target struct {
	Process string // "jobmanager", "tm-1", …: the label process
	Address string // "127.0.0.1:9250"
}

// HostConfig is the configuration of live up --prometheus: every job
// scraped every second (timeout 1 s, as the reference's ServiceMonitors),
// node-exporter as job node and again as job node-truth, Flink's reporters
// as job flink with a label process. flink may be empty.
func HostConfig(nodeExporter string, flink []Target) File {
	f := File{
		Global: Global{ScrapeInterval: "1s", ScrapeTimeout: "1s", EvaluationInterval: "1s"},
		ScrapeConfigs: []ScrapeConfig{{
			JobName:       NodeJob,
			StaticConfigs: []StaticConfig{{Targets: []string{nodeExporter}, Labels: map[string]string{"process": "node-exporter"}}},
		}, {
			JobName:       TruthJob,
			StaticConfigs: []StaticConfig{{Targets: []string{nodeExporter}, Labels: map[string]string{"process": "node-exporter"}}},
		}},
	}
	if len(flink) > 0 {
		sc := ScrapeConfig{JobName: FlinkJob}
		for _, t := range flink {
			sc.StaticConfigs = append(sc.StaticConfigs, StaticConfig{Targets: []string{t.Address}, Labels: map[string]string{"process": t.Process}})
		}
		f.ScrapeConfigs = append(f.ScrapeConfigs, sc)
	}
	return f
}

// Render is the YAML of f, with a header comment.
func (f File) Render() ([]byte, error) {
	b, err := yaml.MarshalWithOptions(f, yaml.Indent(2), yaml.IndentSequence(true))
	if err != nil {
		return nil, err
	}
	return append([]byte("# written by streamtwin (live up --prometheus; families turned off by live/prometheus)\n"), b...), nil
}

// ReadFile parses a prometheus.yml written by Render.
func ReadFile(path string) (File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return File{}, err
	}
	var f File
	if err := yaml.Unmarshal(b, &f); err != nil {
		return File{}, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// WriteFile writes f atomically (a reload never reads half a file).
func (f File) WriteFile(path string) error {
	b, err := f.Render()
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// familyName is a metric name (the classic, not UTF-8, character set).
var familyName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)

// CheckFamily tells whether family is a metric name.
func CheckFamily(family string) error {
	if !familyName.MatchString(family) {
		return fmt.Errorf("metric family %q: want a metric name like node_cpu_seconds_total", family)
	}
	return nil
}

// isOffRule tells whether r is the rule that drops the families turned off.
func isOffRule(r RelabelConfig) bool {
	return r.Action == "drop" && slices.Equal(r.SourceLabels, []string{"__name__"})
}

// Off lists the families f drops, sorted: those of the drop rules on
// __name__ of its jobs.
func (f File) Off() []string {
	seen := map[string]bool{}
	for _, sc := range f.ScrapeConfigs {
		for _, r := range sc.MetricRelabelConfigs {
			if isOffRule(r) && r.Regex != "" {
				for _, fam := range strings.Split(r.Regex, "|") {
					seen[fam] = true
				}
			}
		}
	}
	out := make([]string, 0, len(seen))
	for fam := range seen {
		out = append(out, fam)
	}
	sort.Strings(out)
	return out
}

// WithOff returns f whose every job but TruthJob drops exactly the
// families off (one rule `source_labels: [__name__], regex: a|b, action:
// drop` at the end of its metric_relabel_configs; none when off is empty);
// its other rules stay.
func (f File) WithOff(off []string) File {
	off = slices.Clone(off)
	sort.Strings(off)
	off = slices.Compact(off)
	out := f
	out.ScrapeConfigs = make([]ScrapeConfig, len(f.ScrapeConfigs))
	for i, sc := range f.ScrapeConfigs {
		var rules []RelabelConfig
		for _, r := range sc.MetricRelabelConfigs {
			if !isOffRule(r) {
				rules = append(rules, r)
			}
		}
		if len(off) > 0 && sc.JobName != TruthJob {
			rules = append(rules, RelabelConfig{SourceLabels: []string{"__name__"}, Regex: strings.Join(off, "|"), Action: "drop"})
		}
		sc.MetricRelabelConfigs = rules
		out.ScrapeConfigs[i] = sc
	}
	return out
}
