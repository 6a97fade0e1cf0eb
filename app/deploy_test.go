package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// TestSlurmArrayScript runs deploy/slurm-array.sh as Slurm would run task 1
// of 3, against the built binary (make test builds bin/streamtwin first);
// a resubmitted subset of tasks (--array=3,5) must name the shard count.
// make slurm-test runs it on a real Slurm cluster.
func TestSlurmArrayScript(t *testing.T) {
	bin, _ := filepath.Abs("../bin/streamtwin")
	if _, err := os.Stat(bin); err != nil {
		t.Skip("bin/streamtwin not built (run make test)")
	}
	dir, sweepFile := testSweep(t)
	os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
	os.Symlink(bin, filepath.Join(dir, "bin", "streamtwin"))
	script, _ := filepath.Abs("../deploy/slurm-array.sh")
	// task runs the script with Slurm's variables env and, unless "", OUT.
	task := func(out string, env ...string) (string, error) {
		cmd := exec.Command("bash", script, sweepFile)
		if out != "" {
			cmd.Args = append(cmd.Args, out)
		}
		cmd.Dir = dir
		for _, kv := range os.Environ() { // not a real Slurm job's variables
			if !strings.HasPrefix(kv, "SLURM_") && !strings.HasPrefix(kv, "STREAMTWIN") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, env...)
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	out, err := task("", "SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_MAX=2", "SLURM_CPUS_PER_TASK=1")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(out, "(shard 1/3)") {
		t.Errorf("script did not run shard 1/3: %s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "runs", "shard-1", "runs.parquet")); err != nil {
		t.Error(err)
	}
	subset := []string{"SLURM_ARRAY_TASK_ID=5", "SLURM_ARRAY_TASK_MIN=3", "SLURM_ARRAY_TASK_MAX=5", "SLURM_ARRAY_TASK_COUNT=2"}
	if out, err := task("out/s", subset...); err == nil || !strings.Contains(out, "STREAMTWIN_SHARDS") {
		t.Errorf("a subset array without STREAMTWIN_SHARDS ran: %v %s", err, out)
	}
	out, err = task("out/s", append(subset, "STREAMTWIN_SHARDS=8")...)
	if err != nil || !strings.Contains(out, "(shard 5/8)") {
		t.Errorf("STREAMTWIN_SHARDS=8 did not run shard 5/8: %v %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "s-5", "runs.parquet")); err != nil {
		t.Error(err)
	}
}

// TestIndexedJobManifest checks the Kubernetes manifest's shard wiring.
func TestIndexedJobManifest(t *testing.T) {
	b, err := os.ReadFile("../deploy/k8s-indexed-job.yaml")
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

// TestInstallPackagesScript: deploy/install-packages.sh, the one install
// step of make test, make slurm-test and .ci/run, does nothing when the
// commands are there, names the packages when it cannot install them (not
// root, no sudo), and refuses an unknown set.
func TestInstallPackagesScript(t *testing.T) {
	script, _ := filepath.Abs("../deploy/install-packages.sh")
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	have := t.TempDir() // java and mvn, as stubs, readable by nobody
	os.Chmod(filepath.Dir(have), 0o755)
	os.Chmod(have, 0o755)
	for _, c := range []string{"java", "mvn"} {
		if err := os.WriteFile(filepath.Join(have, c), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	empty := t.TempDir()
	run := func(path string, args ...string) (string, int) {
		cmd := exec.Command(bash, append([]string{script}, args...)...)
		if os.Geteuid() == 0 { // as root it would install: run as nobody
			setpriv, err := exec.LookPath("setpriv")
			if err != nil {
				t.Skip("root without setpriv: cannot run the script unprivileged")
			}
			cmd = exec.Command(setpriv, append([]string{"--reuid=65534", "--regid=65534", "--clear-groups", bash, script}, args...)...)
		}
		cmd.Env = []string{"PATH=" + path}
		out, _ := cmd.CombinedOutput()
		return string(out), cmd.ProcessState.ExitCode()
	}
	for _, c := range []struct {
		name, path string
		args       []string
		code       int
		want       string
	}{
		{"present", have, []string{"java"}, 0, ""},
		{"missing, no root", empty, []string{"java", "prometheus"}, 1,
			"Install them as root:  apt-get install --no-install-recommends openjdk-17-jdk-headless maven prometheus prometheus-node-exporter"},
		{"unknown set", empty, []string{"promethus"}, 2, "unknown set 'promethus' (java, prometheus, slurm)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, code := run(c.path, c.args...)
			if code != c.code || !strings.Contains(out, c.want) || (c.want == "" && out != "") {
				t.Errorf("exit %d, output %q; want exit %d and %q", code, out, c.code, c.want)
			}
		})
	}
}
