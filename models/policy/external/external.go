package external

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/streamtwin/streamtwin/internal/jsonproc"
	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/sim"
)

// Protocol is the version of docs/policy-protocol.md this package speaks.
const Protocol = 1

// Name is the policy's scenario name (scenario.ExternalPolicy).
const Name = "external"

// Settings are the keys of `policy: {external: {...}}`.
type Settings struct {
	// the process: command, dir, timeout, start_timeout, config
	jsonproc.Settings `yaml:",inline"`
	// Interval is how often the controller asks.
	Interval sim.Duration `yaml:"interval,omitempty"`
	// Window is how many samples of history the process needs; it gets the
	// new ones each tick and keeps its own window.
	Window int `yaml:"window,omitempty"`
	// Detail also sends per-TaskManager and per-operator metrics.
	Detail bool `yaml:"detail,omitempty"`
	// OnError is fail (end the run) or hold (keep the configuration, record
	// a policy_error event).
	OnError string `yaml:"on_error,omitempty"`
}

// Defaults of Settings.
const (
	DefaultTimeout      = time.Second
	DefaultStartTimeout = 10 * time.Second
	DefaultInterval     = 10 * time.Second
	DefaultWindow       = 600
	OnErrorFail         = "fail"
	OnErrorHold         = "hold"
)

func init() {
	policy.Register(Name, func(node ast.Node, _ *rand.Rand) (policy.Policy, error) {
		var cfg struct {
			Name     string   `yaml:"name,omitempty"`
			External Settings `yaml:"external"`
		}
		if err := policy.Decode(node, &cfg); err != nil {
			return nil, err
		}
		return New(cfg.External)
	})
}

// Policy is one external policy process, started by Begin and stopped by
// End. Its methods are called from the controller's one goroutine.
type Policy struct {
	cfg  Settings
	name string // the process's name for itself, from ready
	proc *jsonproc.Process

	info     policy.RunInfo
	tick     int
	lastSent float64 // time_s of the newest sample sent (−Inf before any)
	dead     error   // the fatal error a holding policy survived; nil while the process serves
	buf      []byte
}

// New validates cfg and fills in its defaults; the process starts with Begin.
func New(cfg Settings) (*Policy, error) {
	var err error
	if cfg.Settings, err = cfg.Settings.WithDefaults("policy.external", "[python3, my_policy.py]", DefaultTimeout, DefaultStartTimeout); err != nil {
		return nil, err
	}
	if cfg.Interval < 0 {
		return nil, fmt.Errorf("policy.external.interval must not be negative, got %v", cfg.Interval)
	}
	cfg.Interval = orDefault(cfg.Interval, DefaultInterval)
	if cfg.Interval < 0.001 {
		return nil, fmt.Errorf("policy.external.interval must be at least 1ms, got %v", cfg.Interval)
	}
	switch {
	case cfg.Window < 0:
		return nil, fmt.Errorf("policy.external.window must be at least 1 sample, got %d", cfg.Window)
	case cfg.Window == 0:
		cfg.Window = DefaultWindow
	}
	switch cfg.OnError {
	case "":
		cfg.OnError = OnErrorFail
	case OnErrorFail, OnErrorHold:
	default:
		return nil, fmt.Errorf("policy.external.on_error must be %s or %s, got %q", OnErrorFail, OnErrorHold, cfg.OnError)
	}
	return &Policy{cfg: cfg, name: Name, lastSent: math.Inf(-1)}, nil
}

func orDefault(d sim.Duration, def time.Duration) sim.Duration {
	if d == 0 {
		return sim.Duration(def.Seconds())
	}
	return d
}

// Name is the process's name for itself (from its ready message) or "external".
func (p *Policy) Name() string { return p.name }

func (p *Policy) Interval() time.Duration { return p.cfg.Interval.Std() }

// WindowSamples keeps the window and every sample between two ticks (at the
// default 1 s metric interval), so each observation can carry all the new rows.
func (p *Policy) WindowSamples() int {
	return max(p.cfg.Window, int(math.Ceil(p.cfg.Interval.Std().Seconds()))+1)
}

// UsesDetail: the process asked for per-TaskManager and per-operator metrics.
func (p *Policy) UsesDetail() bool { return p.cfg.Detail }

// Begin starts the process, says hello and waits for ready; an error refuses
// the run (the process is stopped).
func (p *Policy) Begin(info policy.RunInfo) error {
	p.info = info
	proc, err := p.cfg.Start()
	if err != nil {
		return fmt.Errorf("policy process %w", err)
	}
	p.proc = proc
	hello, err := json.Marshal(helloMsg{Type: "hello", Protocol: Protocol, Config: orEmpty(p.cfg.Config), Job: jobOf(info.Job),
		Run: runMsg{Scenario: info.Scenario, Variant: info.Variant, Seed: info.Seed, DurationS: info.Duration.Seconds(),
			Backend: info.Backend, IntervalS: p.cfg.Interval.Std().Seconds(), Window: p.cfg.Window, MetricIntervalS: info.MetricInterval.Seconds(), Detail: p.cfg.Detail && info.Detail},
		Capabilities: capsMsg{Actions: info.Actions, Detail: info.Detail, MaxParallelism: info.MaxParallelism, RescaleFromCheckpoint: info.RescaleFromCheckpoint}})
	if err != nil {
		p.proc.Kill()
		return fmt.Errorf("policy.external.config: %w", err)
	}
	err = p.begin(append(hello, '\n'))
	if err != nil {
		p.proc.Kill()
	}
	return err
}

func (p *Policy) begin(hello []byte) error {
	if err := p.proc.Send(hello); err != nil {
		return fmt.Errorf("policy process %w", p.proc.Gone("at hello", err))
	}
	data, err := p.proc.Receive(p.cfg.StartTimeout.Std(), "at hello")
	if err != nil {
		return fmt.Errorf("policy process %w", err)
	}
	var r reply
	if err := jsonproc.Decode(data, &r); err != nil {
		return fmt.Errorf("policy process %s: its reply to hello is not valid: %v in line %s", p.proc.Argv(), err, jsonproc.Quote(data))
	}
	switch {
	case r.Type != "ready":
		return fmt.Errorf("policy process %s: replied to hello with type %q; want ready", p.proc.Argv(), r.Type)
	case r.Protocol != Protocol:
		return fmt.Errorf("policy process %s speaks protocol %d; streamtwin speaks %d (docs/policy-protocol.md)", p.proc.Argv(), r.Protocol, Protocol)
	}
	if r.Name != "" {
		p.name = r.Name
	}
	for _, k := range r.Requires {
		if !known(policy.ActionKind(k)) {
			return fmt.Errorf("policy %s requires %q, which is no action (known: %s)", p.name, k, kindList(policy.ActionKinds))
		}
		if !p.info.Can(policy.ActionKind(k)) {
			return fmt.Errorf("policy %s requires %s, which %s cannot do (it can: %s)", p.name, k, p.info.BackendName, kindList(p.info.Actions))
		}
	}
	return nil
}

// Step is StepErr without its error, for callers that are not the controller.
func (p *Policy) Step(now time.Duration, obs policy.Observation) []policy.Action {
	a, _ := p.StepErr(now, obs)
	return a
}

// StepErr sends one observation and returns the actions of the reply. A
// process that is gone or too slow is fatal: with on_error hold the policy
// holds for the rest of the run; a bad reply holds that tick only.
func (p *Policy) StepErr(now time.Duration, obs policy.Observation) ([]policy.Action, error) {
	if p.dead != nil {
		return nil, nil // already recorded; the job keeps its configuration
	}
	p.tick++
	at := fmt.Sprintf("at tick %d (t=%gs)", p.tick, now.Seconds())
	if err := p.proc.Send(p.observation(now, obs)); err != nil {
		return nil, p.fatal(fmt.Errorf("policy process %w", p.proc.Gone(at, err)))
	}
	data, err := p.proc.Receive(p.cfg.Timeout.Std(), at)
	if err != nil {
		return nil, p.fatal(fmt.Errorf("policy process %w", err))
	}
	actions, err := p.actions(data)
	if err != nil {
		return nil, p.failed(fmt.Errorf("policy %s: reply %s: %v; the line: %s", p.name, at, err, jsonproc.Quote(data)))
	}
	return actions, nil
}

// fatal stops the process after err; a holding policy stays stopped.
func (p *Policy) fatal(err error) error {
	p.proc.Kill()
	if p.cfg.OnError == OnErrorHold {
		p.dead = err
		return &policy.HoldError{Err: fmt.Errorf("%w; the policy holds for the rest of the run", err)}
	}
	return err
}

// failed is a bad reply: the run ends, or this tick holds.
func (p *Policy) failed(err error) error {
	if p.cfg.OnError == OnErrorHold {
		return &policy.HoldError{Err: err}
	}
	return err
}

// End says goodbye, closes the process's input and waits up to Timeout for
// it to exit before killing it.
func (p *Policy) End(reason string) {
	if p.proc == nil {
		return
	}
	msg, _ := json.Marshal(struct {
		Type   string `json:"type"`
		Reason string `json:"reason"`
	}{"goodbye", reason})
	p.proc.Close(append(msg, '\n'), p.cfg.Timeout.Std())
}

// actions decodes and checks one reply to an observation.
func (p *Policy) actions(data []byte) ([]policy.Action, error) {
	var r reply
	if err := jsonproc.Decode(data, &r); err != nil {
		return nil, fmt.Errorf("not valid: %v", err)
	}
	if r.Type != "actions" {
		return nil, fmt.Errorf("type %q; want actions", r.Type)
	}
	if r.Tick != p.tick {
		return nil, fmt.Errorf("answers tick %d; want %d", r.Tick, p.tick)
	}
	out := make([]policy.Action, 0, len(r.Actions))
	for i, a := range r.Actions {
		k := policy.ActionKind(a.Kind)
		act := policy.Action{Kind: k, Reason: a.Reason}
		if !known(k) {
			return nil, fmt.Errorf("action %d: unknown kind %q (allowed: %s)", i, a.Kind, kindList(policy.ActionKinds))
		}
		if !p.info.Can(k) {
			return nil, fmt.Errorf("action %d: %s: %s cannot do it (it can: %s)", i, k, p.info.BackendName, kindList(p.info.Actions))
		}
		switch k {
		case policy.SetCheckpointInterval:
			if a.IntervalS == nil || !(*a.IntervalS > 0) || math.IsInf(*a.IntervalS, 0) {
				return nil, fmt.Errorf("action %d: set_checkpoint_interval needs interval_s > 0", i)
			}
			act.Interval = time.Duration(*a.IntervalS * float64(time.Second))
		case policy.Rescale:
			if a.Parallelism == nil || *a.Parallelism < 1 || p.info.MaxParallelism > 0 && *a.Parallelism > p.info.MaxParallelism {
				bound := ""
				if p.info.MaxParallelism > 0 {
					bound = fmt.Sprintf(" and ≤ %d", p.info.MaxParallelism)
				}
				return nil, fmt.Errorf("action %d: rescale needs parallelism ≥ 1%s", i, bound)
			}
			act.Parallelism = *a.Parallelism
		case policy.RescaleVertices:
			if len(a.Vertices) == 0 {
				return nil, fmt.Errorf("action %d: rescale_vertices needs vertices, an object of operator name → parallelism", i)
			}
			for name, par := range a.Vertices {
				if par < 1 || p.info.MaxParallelism > 0 && par > p.info.MaxParallelism {
					bound := "≥ 1"
					if p.info.MaxParallelism > 0 {
						bound = fmt.Sprintf("in 1..%d", p.info.MaxParallelism)
					}
					return nil, fmt.Errorf("action %d: rescale_vertices: vertex %q needs a parallelism %s, got %d", i, name, bound, par)
				}
			}
			act.Vertices = a.Vertices
		}
		out = append(out, act)
	}
	return out, nil
}

func known(k policy.ActionKind) bool {
	for _, a := range policy.ActionKinds {
		if a == k {
			return true
		}
	}
	return false
}

func kindList(ks []policy.ActionKind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

var _ interface {
	policy.Fallible
	policy.Session
	policy.WindowUser
	policy.DetailUser
} = (*Policy)(nil)
