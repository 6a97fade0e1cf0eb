package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// TestSlurmArrayScript runs deploy/slurm-array.sh as Slurm would run task 1
// of 3, against the built binary (make test builds bin/streamtwin first).
func TestSlurmArrayScript(t *testing.T) {
	bin, _ := filepath.Abs("../../bin/streamtwin")
	if _, err := os.Stat(bin); err != nil {
		t.Skip("bin/streamtwin not built (run make test)")
	}
	dir, sweepFile := testSweep(t)
	os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
	os.Symlink(bin, filepath.Join(dir, "bin", "streamtwin"))
	script, _ := filepath.Abs("../../deploy/slurm-array.sh")
	cmd := exec.Command("bash", script, sweepFile)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_MAX=2", "SLURM_CPUS_PER_TASK=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(string(out), "(shard 1/3)") {
		t.Errorf("script did not run shard 1/3: %s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "runs", "shard-1", "runs.parquet")); err != nil {
		t.Error(err)
	}
}

// TestIndexedJobManifest checks the Kubernetes manifest's shard wiring.
func TestIndexedJobManifest(t *testing.T) {
	b, err := os.ReadFile("../../deploy/k8s-indexed-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var job struct {
		Kind string `yaml:"kind"`
		Spec struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int    `yaml:"completions"`
			Template       struct {
				Spec struct {
					Containers []struct {
						Env  []struct{ Name, Value string } `yaml:"env"`
						Args []string                       `yaml:"args"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(b, &job); err != nil {
		t.Fatal(err)
	}
	c := job.Spec.Template.Spec.Containers[0]
	if job.Kind != "Job" || job.Spec.CompletionMode != "Indexed" || c.Env[0].Value != "8" || job.Spec.Completions != 8 ||
		!strings.Contains(c.Args[0], `--shard "${JOB_COMPLETION_INDEX}/${SHARDS}"`) {
		t.Errorf("manifest does not map the completion index to --shard: %+v", job)
	}
}
