package jsonproc

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/streamtwin/streamtwin/sim"
)

// Settings are what a scenario says of an external process, a policy's or
// a forecaster's (inline in their sections: policy.external,
// monitoring.samplers[].external).
type Settings struct {
	// Command is the process's argv; Dir its working directory (the
	// scenario loader makes it the scenario's folder by default). A
	// command[0] with a slash (../.venv/bin/python) is relative to Dir; a
	// bare name (python3) is looked up in streamtwin's own PATH.
	Command []string `yaml:"command"`
	Dir     string   `yaml:"dir,omitempty"`
	// Env is added to the environment the process inherits from
	// streamtwin (PYTHONPATH, a model's folder); a name given here
	// replaces the inherited value.
	Env Env `yaml:"env,omitempty"`
	// Timeout bounds the wait for each reply, StartTimeout the wait for the
	// reply to hello (an interpreter's start-up and its imports).
	Timeout      sim.Duration `yaml:"timeout,omitempty"`
	StartTimeout sim.Duration `yaml:"start_timeout,omitempty"`
	// Config is handed to the process in hello, as given.
	Config map[string]any `yaml:"config,omitempty"`
}

// WithDefaults checks s and fills in the timeouts it leaves out; errors
// name field (policy.external) and show example (a command) when the
// command is missing. Env's names must not be empty nor contain '='.
func (s Settings) WithDefaults(field, example string, timeout, startTimeout time.Duration) (Settings, error) {
	if len(s.Command) == 0 || s.Command[0] == "" {
		return s, fmt.Errorf("%s.command: missing; the process to run, e.g. %s", field, example)
	}
	for _, d := range []struct {
		name string
		d    sim.Duration
	}{{"timeout", s.Timeout}, {"start_timeout", s.StartTimeout}} {
		if d.d < 0 || math.IsNaN(float64(d.d)) {
			return s, fmt.Errorf("%s.%s must not be negative, got %v", field, d.name, d.d)
		}
	}
	if s.Timeout == 0 {
		s.Timeout = sim.Duration(timeout.Seconds())
	}
	if s.StartTimeout == 0 {
		s.StartTimeout = sim.Duration(startTimeout.Seconds())
	}
	if err := s.Env.check(field); err != nil {
		return s, err
	}
	s.Command, s.Env = slices.Clone(s.Command), maps.Clone(s.Env)
	return s, nil
}

// Start runs the command in its folder, with its environment.
func (s Settings) Start() (*Process, error) { return Start(s.Command, s.Dir, s.Env.List()) }
